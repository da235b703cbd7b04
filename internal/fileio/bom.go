package fileio

import (
	"bufio"
	"io"
)

// SkipBOM returns r without the UTF-8 byte-order mark (EF BB BF) that some
// programs (Excel, pandas' utf-8-sig) write at the start of a text file; a
// mark anywhere else is left alone.
func SkipBOM(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && string(b) == "\uFEFF" {
		br.Discard(3)
	}
	return br
}
