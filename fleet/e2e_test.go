package fleet

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// digestObserver checks every render it sees: no error, and a set digest
// the test pushed.
type digestObserver struct {
	allowed map[string]bool
	renders atomic.Int64
	bad     atomic.Value // string: the first bad event
}

func (o *digestObserver) ObserveRender(ev manager.RenderEvent) {
	o.renders.Add(1)
	if ev.Err != nil || !o.allowed[ev.Digest] || ev.Hash == "" {
		o.bad.CompareAndSwap(nil, fmt.Sprintf("%+v", ev))
	}
}

func (o *digestObserver) ObserveReload(manager.ReloadEvent) {}

// The end-to-end test: push :v1, tag :production, follow it with
// 8 goroutines rendering throughout; push :v2 and retag: the host serves
// it at its next poll, no render torn or failed; a broken set is refused
// before pushing; with the registry down a restarted host serves its
// cached last good set; retag :production to :v1 (rollback): the host
// follows.
func TestFleetEndToEnd(t *testing.T) {
	start := time.Now()
	reg, c := startRegistry(t)
	ctx := testContext(t, 2*time.Minute)
	repo := reg.Host + "/prompts"
	const interval, jitter = 200 * time.Millisecond, 0.2

	s1, err := Load(writeDir(t, setFiles("one")))
	require.NoError(t, err)
	s2, err := Load(writeDir(t, setFiles("two")))
	require.NoError(t, err)
	want := map[string]string{s1.Digest: "[one] one, Ann", s2.Digest: "[two] two, Ann"}

	p1, err := c.Push(ctx, s1, repo+":v1", "v1")
	require.NoError(t, err)
	_, err = c.Tag(ctx, repo+":v1", "production")
	require.NoError(t, err)

	obs := &digestObserver{allowed: map[string]bool{s1.Digest: true, s2.Digest: true}}
	cacheDir := t.TempDir()
	follow := func() (*Follower, error) {
		return Follow(ctx, repo+":production", WithClient(c), WithCacheDir(cacheDir),
			WithInterval(interval), WithJitter(jitter), WithTimeout(20*time.Second),
			WithManagerOptions(manager.WithObserver(obs)))
	}
	f, err := follow()
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	require.Equal(t, s1.Digest, f.Manager().Digest())
	require.Equal(t, p1.Manifest, f.Status().Manifest)

	// Eight goroutines render throughout, through whichever host is up.
	var live atomic.Pointer[manager.Manager]
	live.Store(f.Manager())
	var (
		stop     = make(chan struct{})
		wg       sync.WaitGroup
		renders  atomic.Int64
		failures atomic.Value // string
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				out, err := live.Load().Render("greet", map[string]any{"name": "Ann"})
				renders.Add(1)
				if err != nil || (out != want[s1.Digest] && out != want[s2.Digest]) {
					failures.CompareAndSwap(nil, fmt.Sprintf("render: %q, %v", out, err))
				}
			}
		}()
	}
	stopRenders := sync.OnceFunc(func() { close(stop); wg.Wait() })
	t.Cleanup(stopRenders)

	// expectServe subscribes to follower g's polls; the function it returns
	// waits until g serves manifest and returns the poll that brought it.
	expectServe := func(g *Follower, manifest string) func() uint64 {
		served := make(chan uint64, 1)
		cancel := g.Subscribe(func(ev PollEvent) {
			if ev.Changed && ev.Manifest == manifest {
				select {
				case served <- ev.N:
				default:
				}
			}
		})
		return func() uint64 {
			t.Helper()
			defer cancel()
			select {
			case n := <-served:
				return n
			case <-time.After(time.Minute): // a hang: which poll served it is asserted below
				t.Fatalf("the host did not serve %s within a minute: %+v", manifest, g.Status())
				return 0
			}
		}
	}

	// v2, promoted: the first poll that starts after the retag serves it.
	p2, err := c.Push(ctx, s2, repo+":v2", "v2")
	require.NoError(t, err)
	wait := expectServe(f, p2.Manifest)
	_, err = c.Tag(ctx, repo+":v2", "production")
	require.NoError(t, err)
	tagged := time.Now()
	started := f.polls.Load()
	n := wait()
	t.Logf("v2 served by poll %d, %v after the retag (interval %v)", n, time.Since(tagged), interval)
	assert.LessOrEqual(t, n, started+1, "served by the first poll after the retag")
	assert.Equal(t, s2.Digest, f.Manager().Digest())
	assert.Equal(t, s2.Digest, f.Status().SetDigest)
	assert.NoError(t, f.Status().LastError)

	// A broken set is refused before it is pushed, and nothing changes.
	broken := setFiles("three")
	broken["templates/greet.md"] = "{{ nmae }}"
	_, err = Load(writeDir(t, broken))
	require.ErrorIs(t, err, manager.ErrUndeclaredVariable)
	forged := &Set{Digest: s2.Digest, Files: map[string][]byte{}}
	for p, s := range broken {
		if p != "README.md" {
			forged.Files[p] = []byte(s)
		}
	}
	_, err = c.Push(ctx, forged, repo+":broken", "")
	require.ErrorIs(t, err, manager.ErrUndeclaredVariable, "Push checks the set again")
	_, err = c.Resolve(ctx, repo+":broken")
	require.Error(t, err, "nothing was pushed")
	require.NoError(t, f.Poll(ctx))
	assert.Equal(t, s2.Digest, f.Manager().Digest())

	// Registry down, host restarted: the cached last good set serves.
	require.NoError(t, f.Close())
	reg.Stop()
	f2, err := follow()
	require.NoError(t, err, "a host restarts while the registry is down")
	t.Cleanup(func() { f2.Close() })
	live.Store(f2.Manager())
	st := f2.Status()
	assert.True(t, st.FromCache, "served from the cache at once")
	// The first poll runs in the background, and fails.
	require.Eventually(t, func() bool { return f2.Status().Polls >= 1 }, 20*time.Second, 5*time.Millisecond)
	st = f2.Status()
	assert.True(t, st.FromCache)
	assert.Error(t, st.LastError)
	assert.Equal(t, p2.Manifest, st.Manifest)
	assert.Equal(t, s2.Digest, f2.Manager().Digest())
	out, err := f2.Manager().Render("greet", map[string]any{"name": "Ann"})
	require.NoError(t, err)
	assert.Equal(t, want[s2.Digest], out)

	// Registry back; rollback: :production to :v1 again.
	reg.Restart()
	wait = expectServe(f2, p1.Manifest)
	_, err = c.Tag(ctx, repo+"@"+p1.Manifest, "production")
	require.NoError(t, err)
	started = f2.polls.Load()
	n = wait()
	assert.LessOrEqual(t, n, started+1)
	assert.Equal(t, s1.Digest, f2.Manager().Digest())
	st = f2.Status()
	assert.False(t, st.FromCache)
	assert.NoError(t, st.LastError)
	assert.Equal(t, p1.Manifest, st.Manifest)

	stopRenders()
	if v := failures.Load(); v != nil {
		t.Fatal(v)
	}
	if v := obs.bad.Load(); v != nil {
		t.Fatalf("observed a bad render: %v", v)
	}
	assert.Positive(t, renders.Load())
	assert.Equal(t, renders.Load()+1, obs.renders.Load(), "the observer saw every render (and the one after the restart)")
	t.Logf("%d renders, none failed or torn; %v in all", renders.Load(), time.Since(start))
}
