package prom

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/gopcu/gopcu/internal/testutil"
)

func startServer(t *testing.T, e *Exporter) *Server {
	t.Helper()
	s, err := e.Serve("127.0.0.1:0")
	if err != nil {
		t.Skipf("needs a loopback TCP listener: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// dial opens a connection to s with a 10 s deadline, closed at the
// test's cleanup.
func dial(t *testing.T, s *Server) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return c
}

// exchange sends raw request octets on a new connection and reads the
// answers (net/http's parser) to as many requests.
func exchange(t *testing.T, s *Server, raw string, n int, method string) ([]*http.Response, []string) {
	t.Helper()
	c := dial(t, s)
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	var resps []*http.Response
	var bodies []string
	for range n {
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			t.Fatalf("answer %d to %q: %v", len(resps)+1, raw, err)
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		resps, bodies = append(resps, resp), append(bodies, string(b))
	}
	return resps, bodies
}

// TestServerHTTP: the answers of the /metrics server to what Prometheus,
// pcubench (Accept-Encoding: identity), curl and the chaos tests' raw
// HTTP/1.0 request send, and to requests it refuses.
func TestServerHTTP(t *testing.T) {
	e := New(nil)
	e.ObserveSojourn(0xc0000001, time.Millisecond)
	s := startServer(t, e)
	const accept = "Accept: application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2\r\n"

	// Prometheus: HTTP/1.1, gzip offered, two scrapes on one connection.
	req := "GET /metrics HTTP/1.1\r\nHost: x\r\nUser-Agent: Prometheus/3.0\r\n" + accept + "Accept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n"
	resps, bodies := exchange(t, s, req+req, 2, "GET")
	for i, r := range resps {
		if r.StatusCode != 200 || r.Proto != "HTTP/1.1" || r.Close || r.Header.Get("Content-Type") != contentType ||
			r.Header.Get("Content-Encoding") != "" || r.Header.Get("Date") == "" || r.ContentLength != int64(len(bodies[i])) {
			t.Errorf("scrape %d: %d %s close=%v %v", i, r.StatusCode, r.Proto, r.Close, r.Header)
		}
		p := expfmt.NewTextParser(model.LegacyValidation)
		mf, err := p.TextToMetricFamilies(strings.NewReader(bodies[i]))
		if err != nil || mf["gopcu_ms_llc_sojourn_seconds"] == nil || mf["go_memstats_mallocs_total"] == nil {
			t.Errorf("scrape %d: %v, %d families", i, err, len(mf))
		}
	}

	// The chaos rig's HTTP/1.0 request: answered, then the connection closes.
	resps, bodies = exchange(t, s, "GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n", 1, "GET")
	if r := resps[0]; r.StatusCode != 200 || !r.Close || !strings.Contains(bodies[0], "\ngo_goroutines ") {
		t.Errorf("HTTP/1.0: %d close=%v %.60q", r.StatusCode, r.Close, bodies[0])
	}

	// A query, an absolute-form target, LF-only lines, HEAD, Connection: close.
	for _, c := range []struct {
		raw, method string
		status      int
		body        bool
	}{
		{"GET /metrics?x=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "GET", 200, true},
		{"GET http://x:9240/metrics HTTP/1.1\nHost: x\nConnection: close\n\n", "GET", 200, true},
		{"\r\nHEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "HEAD", 200, false},
		{"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "GET", 404, true},
		{"GET /metricsx HTTP/1.1\r\nConnection: close\r\n\r\n", "GET", 404, true},
		{"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", "POST", 405, true},
		{"GET /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc", "GET", 400, true},
		{"GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "GET", 400, true},
		{"GET /metrics\r\n\r\n", "GET", 400, true},
		{"GET /metrics HTTP/2.0\r\n\r\n", "GET", 400, true},
		{"GET /metrics HTTP/1.1\r\nno colon\r\n\r\n", "GET", 400, true},
		{"GET /metrics HTTP/1.1\r\nX: " + strings.Repeat("a", 5000) + "\r\n\r\n", "GET", 400, true},
		{"GET /metrics HTTP/1.1\r\n" + strings.Repeat("X: "+strings.Repeat("a", 1000)+"\r\n", 9) + "\r\n", "GET", 400, true},
	} {
		resps, bodies := exchange(t, s, c.raw, 1, c.method)
		r := resps[0]
		if r.StatusCode != c.status || (len(bodies[0]) > 0) != c.body {
			t.Errorf("%.50q: %d, %d octets; want %d", c.raw, r.StatusCode, len(bodies[0]), c.status)
		}
		if c.status == 200 && c.method == "HEAD" && r.ContentLength < 1000 {
			t.Errorf("HEAD: Content-Length %d", r.ContentLength)
		}
		if c.status == 405 && r.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("405 without Allow: %v", r.Header)
		}
	}

	// net/http's client, as pcubench scrapes.
	req2, _ := http.NewRequest("GET", "http://"+s.Addr().String()+"/metrics", nil)
	req2.Header.Set("Accept-Encoding", "identity")
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	for range 3 {
		r, err := (&http.Client{Transport: tr}).Do(req2)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != 200 || !strings.Contains(string(b), "\ngo_memstats_mallocs_total ") {
			t.Fatalf("client: %d %.60q", r.StatusCode, b)
		}
	}
}

// TestServerClose: Close ends idle keep-alive connections and a
// connection that has sent half a request, and returns; the port is free.
func TestServerClose(t *testing.T) {
	e := New(nil)
	s, err := e.Serve("127.0.0.1:0")
	if err != nil {
		t.Skipf("needs a loopback TCP listener: %v", err)
	}
	idle := dial(t, s)
	io.WriteString(idle, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(idle)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	half := dial(t, s)
	io.WriteString(half, "GET /metr")

	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close waits for open connections")
	}
	for _, c := range []net.Conn{idle, half} {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		// EOF, or a reset where the server closed with unread octets.
		var ne net.Error
		if n, err := c.Read(make([]byte, 1)); err == nil || errors.As(err, &ne) && ne.Timeout() {
			t.Errorf("connection after Close: %d, %v; want it closed", n, err)
		}
	}
	ln, err := net.Listen("tcp", s.Addr().String())
	if err != nil {
		t.Errorf("port not released: %v", err)
	} else {
		ln.Close()
	}
}

// TestServerHeadNotFound: a HEAD of another path gets a 404 without a
// body (RFC 9110 §9.3.2), so that the next answer on the connection
// starts where the client expects it.
func TestServerHeadNotFound(t *testing.T) {
	s := startServer(t, New(nil))
	c := dial(t, s)
	io.WriteString(c, "HEAD /x HTTP/1.1\r\nHost: x\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	br := bufio.NewReader(c)
	r1, err := http.ReadResponse(br, &http.Request{Method: "HEAD"})
	if err != nil || r1.StatusCode != 404 {
		t.Fatalf("HEAD /x: %v %v", r1, err)
	}
	r2, err := http.ReadResponse(br, &http.Request{Method: "GET"})
	if err != nil || r2.StatusCode != 200 {
		t.Fatalf("GET after HEAD /x: %v %v", r2, err)
	}
	b, _ := io.ReadAll(r2.Body)
	if !strings.Contains(string(b), "go_goroutines") {
		t.Fatalf("page %.60q", b)
	}
}

// TestServerConnectionBound: beyond maxConns open connections a new one
// is closed at once; when one goes, a new one is served again.
func TestServerConnectionBound(t *testing.T) {
	s := startServer(t, New(nil))
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for range maxConns {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	// the server has taken them all (served: each answers a scrape)
	for _, c := range held {
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
		r, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "GET"})
		if err != nil || r.StatusCode != 200 {
			t.Fatalf("held connection: %v %v", r, err)
		}
		io.Copy(io.Discard, r.Body)
	}
	extra := dial(t, s)
	io.WriteString(extra, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
	if n, err := extra.Read(make([]byte, 1)); err == nil {
		t.Fatalf("connection %d served (%d octets)", maxConns+1, n)
	}
	held[0].Close()
	held = held[1:]
	var err error
	if !testutil.Poll(10*time.Second, func() bool { // until the server notices the close
		c, e := net.Dial("tcp", s.Addr().String())
		if e != nil {
			t.Fatal(e)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		var r *http.Response
		r, err = http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "GET"})
		c.Close()
		return err == nil && r.StatusCode == 200
	}) {
		t.Fatalf("no connection served after one closed: %v", err)
	}
}
