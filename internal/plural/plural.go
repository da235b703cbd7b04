// Package plural formats counts with the singular or the plural form of a
// noun, so that messages read "1 chain" and "2 chains", never "1 chains".
package plural

import "strconv"

// Integer is the type of a count.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// Count returns n followed by one (for n == 1) or many (otherwise):
// Count(1, "chain", "chains") is "1 chain", Count(0, "chain", "chains")
// is "0 chains".
func Count[T Integer](n T, one, many string) string {
	return format(n) + " " + Word(n, one, many)
}

// Word returns one for n == 1 and many otherwise.
func Word[T Integer](n T, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func format[T Integer](n T) string {
	if n < 0 {
		return strconv.FormatInt(int64(n), 10)
	}
	return strconv.FormatUint(uint64(n), 10)
}
