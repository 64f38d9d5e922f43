package main

import (
	_ "embed"
	"os"

	. "example.com/goproj/internal/strutil"
	"example.com/goproj/internal/server"
	u "example.com/goproj/internal/util"
)

func main() {
	srv := server.NewServer(u.Normalize(os.Args[0]))
	if err := srv.Start(); err != nil {
		panic(err)
	}
	println(Reverse("abc"), u.MaxRetries)
}
