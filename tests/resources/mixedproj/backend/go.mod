module example.com/backend

go 1.22
