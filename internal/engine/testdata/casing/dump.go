//go:build ignore

package main

import (
	"bufio"
	"fmt"
	"os"
	"unicode"
)

func b(x bool) int {
	if x {
		return 1
	}
	return 0
}

func main() {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for r := rune(0); r <= 0x10FFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		fmt.Fprintf(w, "%d %d %d %d %d %d %d %d %d %d %d %d\n", r, unicode.ToUpper(r), unicode.ToLower(r), unicode.ToTitle(r),
			b(unicode.IsUpper(r)), b(unicode.IsLower(r)), b(unicode.IsTitle(r)),
			b(unicode.IsDigit(r)), b(unicode.IsNumber(r)), b(unicode.IsLetter(r)), b(unicode.IsPrint(r)), b(unicode.IsSpace(r)))
	}
}
