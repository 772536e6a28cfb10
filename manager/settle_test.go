package manager

import (
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// served records what template "a" renders after each reload that
// swapped a set in, and the failures.
type served struct {
	mu   sync.Mutex
	outs []string
	errs []error
}

func serve(t *testing.T, m *Manager) *served {
	s := &served{}
	m.Subscribe(func(ev ReloadEvent) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if ev.Err != nil {
			s.errs = append(s.errs, ev.Err)
			return
		}
		out, err := m.Render("a", nil)
		assert.NoError(t, err)
		s.outs = append(s.outs, out)
	})
	return s
}

// last is the last output served.
func (s *served) last() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.outs) == 0 {
		return ""
	}
	return s.outs[len(s.outs)-1]
}

// A file written in place by a slow writer is never loaded half written:
// not when the writer pauses longer than the debounce, not when it writes
// for longer than the maximum wait. Each half is a valid template, which
// the strict checks cannot refuse.
func TestWatchSlowWriters(t *testing.T) {
	for name, write := range map[string]func(f *os.File) string{
		"a pause longer than the debounce": func(f *os.File) string {
			_, err := f.WriteString("part one.")
			require.NoError(t, err)
			time.Sleep(5 * testDebounce) // the writer's slowness, not an assertion
			_, err = f.WriteString(" part two.")
			require.NoError(t, err)
			return "part one. part two."
		},
		"writes for longer than the maximum wait": func(f *os.File) string {
			var all strings.Builder
			for i := range 30 { // 30 × 20 ms: twice the maximum wait, never a debounce apart
				line := strings.Repeat("x", i) + "\n"
				_, err := f.WriteString(line)
				require.NoError(t, err)
				all.WriteString(line)
				time.Sleep(testDebounce / 2)
			}
			return strings.TrimSuffix(all.String(), "\n") // the template's last newline is trimmed, as Jinja does
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			a := filepath.Join(dir, "a.md")
			writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md"}))
			writeFile(t, a, "before")
			m := openWatched(t, dir, WithSettle(20*testDebounce))
			s := serve(t, m)
			f, err := os.OpenFile(a, os.O_WRONLY|os.O_TRUNC, 0)
			require.NoError(t, err)
			want := write(f)
			require.NoError(t, f.Close())
			require.Eventually(t, func() bool { return s.last() == want }, waitLong, pollEvery,
				"the whole save was never served; last %q, generation %d, last error %v", s.last(), m.Generation(), m.LastError())
			s.mu.Lock()
			defer s.mu.Unlock()
			assert.Equal(t, []string{want}, s.outs, "only the whole save was ever served")
			assert.Empty(t, s.errs, "nor refused half-way (an empty file is)")
		})
	}
}

// Files that are not part of the set — a log written beside the
// templates, a folder of them, a rewrite of a template with the same
// contents — reload nothing: no reload event, no new generation.
func TestWatchIgnoresFilesOutsideTheSet(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.md")
	writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md"}))
	writeFile(t, a, "A1")
	m := openWatched(t, dir)
	rec := record(m)

	log, err := os.OpenFile(filepath.Join(dir, "app.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	require.NoError(t, err)
	for i := range 40 { // 40 × 10 ms: a dozen debounce periods
		_, err := log.WriteString("request served\n")
		require.NoError(t, err)
		if i == 20 {
			writeFile(t, filepath.Join(dir, "logs", "old.log"), "rotated")
			writeFile(t, a, "A1") // the same contents again
		}
		time.Sleep(testDebounce / 3)
	}
	require.NoError(t, log.Close())

	// The next edit of the set is the first reload.
	saveByRename(t, a, "A2")
	waitRender(t, m, "a", "A2")
	assert.Equal(t, uint64(2), m.Generation())
	evs := rec.waitGeneration(t, 2)
	assert.Len(t, evs, 1, "one reload, for the edit: %v", evs)
}

// A reload that failed because a file could not be read is retried when
// a chmod makes it readable — an attribute change alone, which reloads
// nothing while the set serving is good.
func TestWatchRetriesWhenPermissionIsRestored(t *testing.T) {
	if asUnprivileged(t) {
		return
	}
	dir := t.TempDir()
	a := filepath.Join(dir, "a.md")
	writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md"}))
	writeFile(t, a, "A1")
	m := openWatched(t, dir)
	events := make(chan ReloadEvent, 64)
	m.Subscribe(func(ev ReloadEvent) { events <- ev })
	next := func() ReloadEvent {
		t.Helper()
		select {
		case ev := <-events:
			return ev
		case <-time.After(waitLong):
			t.Fatalf("no reload; generation %d, last error %v", m.Generation(), m.LastError())
		}
		return ReloadEvent{}
	}

	// A save that leaves the file unreadable.
	writeFile(t, a, "A2")
	require.NoError(t, os.Chmod(a, 0))
	ev := next()
	require.ErrorIs(t, ev.Err, fs.ErrPermission)
	assert.Equal(t, "A1", mustRender(t, m, "a"), "the last good set serves")

	require.NoError(t, os.Chmod(a, 0o644))
	for ev = next(); ev.Err != nil; ev = next() {
		require.ErrorIs(t, ev.Err, fs.ErrPermission, "only the permission fails, until the chmod is seen")
	}
	assert.Equal(t, "A2", mustRender(t, m, "a"))
	assert.NoError(t, m.LastError())
}

// asUnprivileged runs the calling test again, as the user nobody, when
// the tests run as root (whom file permissions do not stop), and reports
// whether it did: the caller then returns. The test binary is copied
// where nobody can run it, and runs with a temporary directory of
// nobody's.
func asUnprivileged(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	const nobody = 65534
	dir, err := os.MkdirTemp("", "promptkit-nobody-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	tmp := filepath.Join(dir, "tmp")
	require.NoError(t, os.Mkdir(tmp, 0o700))
	require.NoError(t, os.Chown(tmp, nobody, nobody))
	bin := filepath.Join(dir, "manager.test")
	src, err := os.Open(os.Args[0])
	require.NoError(t, err)
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(dst, src)
	require.NoError(t, err)
	require.NoError(t, dst.Close())

	cmd := exec.Command(bin, "-test.run", "^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Dir = tmp
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMPDIR=") && !strings.HasPrefix(kv, "GOCOVERDIR=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "as nobody:\n%s", out)
	require.Contains(t, string(out), "--- PASS: "+t.Name(), "as nobody:\n%s", out)
	return true
}

// A load whose files change while it reads them is never applied: the
// files it read are looked at again after it, by size and time, and by
// contents when changed lately (a rewrite within the clock's resolution).
func TestReadLogMoved(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, IndexFile), index(map[string]string{"a": "a.md", "b": "b.md"}))
	writeFile(t, filepath.Join(dir, "a.md"), "A1")
	writeFile(t, filepath.Join(dir, "b.md"), "B1")
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()
	fsys := newRootFS(root)
	cfg, err := newConfig(nil)
	require.NoError(t, err)
	log := readLog{}
	_, err = load(fsys, cfg, nil, log)
	require.NoError(t, err)
	assert.Len(t, log, 3)
	assert.Empty(t, log.moved(fsys, cfg.maxFileBytes, time.Second, time.Now()))

	// Appended to while read.
	writeFile(t, filepath.Join(dir, "a.md"), "A1 and more")
	assert.Equal(t, "a.md", log.moved(fsys, cfg.maxFileBytes, time.Second, time.Now()))

	// Rewritten with the same size and time: told by its contents while
	// it is recent, not after.
	log = readLog{}
	_, err = load(fsys, cfg, nil, log)
	require.NoError(t, err)
	fi, err := os.Stat(filepath.Join(dir, "b.md"))
	require.NoError(t, err)
	writeFile(t, filepath.Join(dir, "b.md"), "B2")
	require.NoError(t, os.Chtimes(filepath.Join(dir, "b.md"), fi.ModTime(), fi.ModTime()))
	assert.Equal(t, "b.md", log.moved(fsys, cfg.maxFileBytes, time.Hour, time.Now()))
	assert.Empty(t, log.moved(fsys, cfg.maxFileBytes, time.Second, fi.ModTime().Add(time.Minute)))
}
