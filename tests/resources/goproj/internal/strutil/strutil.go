package strutil

// Normalize here reverses: only an import decides which Normalize is meant.
func Normalize(s string) string {
	return Reverse(s)
}

func Reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}
