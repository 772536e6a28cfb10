//go:build unix

package manager

import (
	"os"
	"syscall"
)

// O_NONBLOCK makes opening a FIFO return at once; on a regular file it
// changes nothing.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
