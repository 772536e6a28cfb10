//go:build !unix

package manager

import "os"

// Outside Unix there are no FIFOs to open by path.
const openFlags = os.O_RDONLY
