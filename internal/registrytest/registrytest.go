// Package registrytest runs a real OCI registry on the loopback interface
// for tests: Debian's docker-registry package, the CNCF distribution
// registry (/usr/bin/docker-registry). Tests that need it call Start,
// which skips the test with a clear message where the binary is absent
// (CI installs it, so CI never skips). No mock registry: pushes, tags,
// manifests and tag lists go through the same server code a fleet's
// registry runs.
package registrytest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Binary is where Debian's docker-registry package installs the registry.
const Binary = "/usr/bin/docker-registry"

// Registry is one registry server on 127.0.0.1, storing its blobs and
// manifests in a temporary directory that outlives Stop, so Restart
// brings back the same repositories on the same address.
type Registry struct {
	// Host is "127.0.0.1:PORT": the registry part of a reference, as in
	// Host + "/prompts:v1".
	Host string

	t       testing.TB
	bin     string
	config  string
	storage string
	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{}
}

// configTemplate is the registry's configuration: filesystem storage in
// the test's temporary directory, deletes allowed, loopback only, no auth.
const configTemplate = `version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: %s
  delete:
    enabled: true
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: %s
`

// User and Password are the account of a registry started with
// StartWithAuth. PasswordHash is Password's bcrypt hash (cost 4, so each
// request's check is fast), as an htpasswd file holds it.
const (
	User         = "promptkit"
	Password     = "promptkit-test"
	PasswordHash = "$2b$04$LbiODeonhRiwnP8Nk5cKDOr.h8eMWGl0tuYDk.lMo/of4CAAghbeK"
)

// authConfig turns on HTTP basic authentication against an htpasswd file.
const authConfig = `auth:
  htpasswd:
    realm: promptkit-test
    path: %s
`

// BlobFile is the file in which the registry stores the blob of digest d
// ("sha256:…"), a manifest's included: a test corrupts one to see what a
// client does with a registry whose storage went bad.
func (r *Registry) BlobFile(d string) string {
	algo, hex, _ := strings.Cut(d, ":")
	return filepath.Join(r.storage, "docker", "registry", "v2", "blobs", algo, hex[:2], hex, "data")
}

// Start starts a registry for the test and stops it when the test ends.
// It skips the test where /usr/bin/docker-registry (or $PROMPTKIT_REGISTRY)
// is absent.
func Start(t testing.TB) *Registry { return start(t, false) }

// StartWithAuth is Start for a registry that lets only User in, with
// Password (HTTP basic authentication).
func StartWithAuth(t testing.TB) *Registry { return start(t, true) }

func start(t testing.TB, withAuth bool) *Registry {
	t.Helper()
	bin := os.Getenv("PROMPTKIT_REGISTRY")
	if bin == "" {
		bin = Binary
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no OCI registry: %s is absent (install Debian's docker-registry package: apt-get install -y docker-registry; or set PROMPTKIT_REGISTRY)", bin)
	}
	dir := t.TempDir()
	host, err := freeAddr()
	if err != nil {
		t.Fatalf("registrytest: %v", err)
	}
	config := filepath.Join(dir, "config.yml")
	data := fmt.Sprintf(configTemplate, filepath.Join(dir, "storage"), host)
	if withAuth {
		htpasswd := filepath.Join(dir, "htpasswd")
		if err := os.WriteFile(htpasswd, []byte(User+":"+PasswordHash+"\n"), 0o600); err != nil {
			t.Fatalf("registrytest: %v", err)
		}
		data += fmt.Sprintf(authConfig, htpasswd)
	}
	if err := os.WriteFile(config, []byte(data), 0o644); err != nil {
		t.Fatalf("registrytest: %v", err)
	}
	r := &Registry{Host: host, t: t, bin: bin, config: config, storage: filepath.Join(dir, "storage")}
	r.start()
	t.Cleanup(r.Stop)
	return r
}

// freeAddr picks a free port on 127.0.0.1. Another process could take it
// between here and the registry's start; the start would then fail loudly.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func (r *Registry) start() {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd != nil {
		return
	}
	cmd := exec.Command(r.bin, "serve", r.config)
	out, err := os.Create(r.config + ".log")
	if err != nil {
		r.t.Fatalf("registrytest: %v", err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		out.Close()
		r.t.Fatalf("registrytest: start %s: %v", r.bin, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); out.Close(); close(done) }()
	r.cmd, r.done = cmd, done
	if err := waitReady(r.Host, done, 15*time.Second); err != nil {
		cmd.Process.Kill()
		<-done
		r.cmd = nil
		log, _ := os.ReadFile(r.config + ".log")
		r.t.Fatalf("registrytest: %v\n%s", err, log)
	}
}

// waitReady polls GET /v2/ until the registry answers 200 (or 401, when
// it asks for credentials).
func waitReady(host string, done <-chan struct{}, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+host+"/v2/", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusUnauthorized {
				return nil
			}
		}
		select {
		case <-done:
			return errors.New("the registry exited at start")
		case <-ctx.Done():
			return fmt.Errorf("the registry did not answer on %s within %v", host, limit)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Stop stops the registry; its storage stays for Restart. Stopping a
// stopped registry does nothing.
func (r *Registry) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil {
		return
	}
	r.cmd.Process.Kill()
	<-r.done
	r.cmd = nil
}

// Restart starts the registry again on the same address with the same
// storage.
func (r *Registry) Restart() {
	r.t.Helper()
	r.start()
}
