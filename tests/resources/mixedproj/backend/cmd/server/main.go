package main

import (
	"fmt"

	"example.com/backend/store"
)

func main() {
	s := store.New()
	price, err := s.Price("apple")
	fmt.Println(price, err)
}
