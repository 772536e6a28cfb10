package manager

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
)

// A set's digest names exactly the files it was loaded from, so a host can
// log which prompts served a request and a fleet can pin a set.
//
// It is the SHA-256 of a canonical listing: for each file the set used
// (index.json and every template and part read while loading, never a file
// the set does not reference), in byte order of their slash-separated
// paths relative to the set's root, the path, its length in bytes and the
// bytes themselves. File times, modes, the directory the set sits in and
// the host's path separator take no part; a change of one byte in a used
// file changes it. Bytes are taken as they are: a checkout that turns LF
// into CRLF is a different set (it renders the same, but its files differ).

// digestPrefix marks the algorithm, in the form OCI digests take.
const digestPrefix = "sha256:"

// fileDigest computes the digest of the files, path → content.
func fileDigest(files map[string][]byte) string {
	h := sha256.New()
	for _, p := range slices.Sorted(mapKeys(files)) {
		data := files[p]
		h.Write([]byte(p))
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(len(data))))
		h.Write([]byte{0})
		h.Write(data)
	}
	return digestPrefix + hex.EncodeToString(h.Sum(nil))
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// Digest returns the digest of the set serving now: "sha256:" and 64 hex
// digits over index.json and every file the set uses (see the package
// documentation, # Digest). It is the same for the same files wherever
// they are, and changes when any used file changes. Overrides (Override)
// do not change it; each overridden template's Hash does.
func (m *Manager) Digest() string { return m.cur.Load().digest }
