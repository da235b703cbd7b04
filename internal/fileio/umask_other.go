//go:build !unix

package fileio

import "os"

func umask() os.FileMode { return 0 }
