package manager

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// A set's digest names exactly the files it was loaded from, so a host can
// log which prompts served a request and a fleet can pin a set.
//
// It is the SHA-256 of a canonical listing: for each file the set used
// (index.json and every template and part read while loading, never a file
// the set does not reference), in byte order of their slash-separated
// paths relative to the set's root, the path, its length in bytes and the
// SHA-256 of its bytes. (Hashes of the files, not the files: a reload
// that reads one changed file computes the digest without the others.) File times, modes, the directory the set sits in and
// the host's path separator take no part; a change of one byte in a used
// file changes it. Bytes are taken as they are: a checkout that turns LF
// into CRLF is a different set (it renders the same, but its files differ).

// digestPrefix marks the algorithm, in the form OCI digests take.
const digestPrefix = "sha256:"

// fileSum is what the digest takes of one file.
type fileSum struct {
	size int
	sum  [sha256.Size]byte
}

func sumOf(data []byte) fileSum { return fileSum{size: len(data), sum: sha256.Sum256(data)} }

// fileDigest computes the digest of the files, path → sum; paths are
// their keys, sorted.
func fileDigest(paths []string, files map[string]fileSum) string {
	h := sha256.New()
	var buf []byte
	for _, p := range paths {
		f := files[p]
		buf = append(buf[:0], p...)
		buf = append(buf, 0)
		buf = strconv.AppendInt(buf, int64(f.size), 10)
		buf = append(buf, 0)
		buf = append(buf, f.sum[:]...)
		h.Write(buf)
	}
	return digestPrefix + hex.EncodeToString(h.Sum(nil))
}

// Digest returns the digest of the set serving now: "sha256:" and 64 hex
// digits over index.json and every file the set uses (see the package
// documentation, # Digest). It is the same for the same files wherever
// they are, and changes when any used file changes. Overrides (Override)
// do not change it; each overridden template's Hash does.
func (m *Manager) Digest() string { return m.cur.Load().digest }
