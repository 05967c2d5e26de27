package prom

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/gopcu/gopcu/internal/connset"
)

// The /metrics endpoint is a small HTTP/1.1 server (RFC 9112) of its own
// rather than net/http's: the net/http package alone (with crypto/tls,
// x509 and HTTP/2 that its server links in) costs ~2.4 MB of resident
// memory in a Go program, more than the rest of gopcu's heap. It answers
// GET and HEAD of /metrics (query ignored) with the page, other paths
// with 404, other methods with 405, requests it cannot parse or that carry
// a body with 400; it keeps HTTP/1.1 connections open between scrapes
// (Prometheus reuses them) and closes HTTP/1.0 ones after the answer. The
// body is never compressed: gzip's writer state (~200 kB at BestSpeed,
// ~700 kB at the default level) would outweigh a page of ~16 kB, and
// identity is always an acceptable content coding (RFC 9110 §12.5.3).

// contentType is the text format's media type.
const contentType = "text/plain; version=0.0.4; charset=utf-8"

// Timeouts of a connection: idle between requests, reading a request's
// header once it has begun, writing an answer.
var (
	idleTimeout   = 2 * time.Minute
	headerTimeout = 5 * time.Second
	writeTimeout  = 10 * time.Second
)

// maxHeader bounds a request's header section (request line included).
const maxHeader = 8 << 10

// maxConns bounds the open connections (a scraper needs one; the VTY has
// its own bound, vty.MaxSessions): a connection beyond it is closed at
// once, so that no client can take the file descriptors and memory the
// PCU socket and the Gb need. Each costs a goroutine, a 4 KiB reader and,
// once it scraped, a copy of the page (~16 kB).
const maxConns = 16

// Server is a running /metrics endpoint.
type Server struct {
	e      *Exporter
	ln     net.Listener
	accept sync.WaitGroup
	conns  connset.Set
}

// Serve listens on addr (the process setting; "" = off, the caller does not
// call Serve) and serves /metrics until Close.
func (e *Exporter) Serve(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{e: e, ln: ln}
	s.accept.Go(s.acceptLoop)
	return s, nil
}

// Addr is the listening address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Close stops the server: the listener and every connection close, and
// Close returns once their goroutines have ended.
func (s *Server) Close() error {
	s.conns.Close()
	err := s.ln.Close()
	s.accept.Wait()
	return err
}

func (s *Server) acceptLoop() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			if !s.conns.Closed() { // e.g. out of file descriptors: retry shortly
				time.Sleep(50 * time.Millisecond)
				continue
			}
			return
		}
		full, closed := s.conns.Serve(c, maxConns, s.serveConn)
		if closed {
			return
		}
		if full {
			c.Close()
		}
	}
}

// serveConn answers the requests on c (connset closes it after).
func (s *Server) serveConn(c net.Conn) {
	br := bufio.NewReaderSize(c, 4096) // the longest header line
	var hdr, page []byte
	for {
		c.SetReadDeadline(time.Now().Add(idleTimeout))
		if _, err := br.Peek(1); err != nil {
			return // closed, idle too long
		}
		c.SetReadDeadline(time.Now().Add(headerTimeout))
		req, err := readRequest(br)
		c.SetWriteDeadline(time.Now().Add(writeTimeout))
		if err != nil {
			if errors.Is(err, errBadRequest) {
				hdr = appendStatus(hdr[:0], "HTTP/1.1", "400 Bad Request", false)
				c.Write(appendTextBody(hdr, "400 bad request\n", true))
			}
			return
		}
		switch {
		case req.method != "GET" && req.method != "HEAD":
			hdr = appendStatus(hdr[:0], req.proto, "405 Method Not Allowed", false)
			hdr = append(hdr, "Allow: GET, HEAD\r\n"...)
			c.Write(appendTextBody(hdr, "405 method not allowed\n", true))
			return
		case req.path != "/metrics":
			hdr = appendStatus(hdr[:0], req.proto, "404 Not Found", req.keepAlive)
			// HEAD: the header alone (RFC 9110 §9.3.2)
			hdr = appendTextBody(hdr, "404 page not found\n", req.method != "HEAD")
			if _, err := c.Write(hdr); err != nil {
				return
			}
		default:
			// the page is copied out under the exporter's lock and written
			// after it: a client that does not read holds up only itself
			s.e.scrape(func(p []byte) { page = append(page[:0], p...) })
			hdr = appendStatus(hdr[:0], req.proto, "200 OK", req.keepAlive)
			hdr = append(hdr, "Content-Type: "+contentType+"\r\nContent-Length: "...)
			hdr = strconv.AppendInt(hdr, int64(len(page)), 10)
			hdr = append(hdr, "\r\n\r\n"...)
			bufs := net.Buffers{hdr, page}
			if req.method == "HEAD" {
				bufs = bufs[:1]
			}
			if _, err := bufs.WriteTo(c); err != nil { // one writev
				return
			}
		}
		if !req.keepAlive {
			return
		}
	}
}

// appendStatus starts an answer: status line, Date (RFC 9110 §6.6.1), and
// Connection: close unless the connection stays open.
func appendStatus(b []byte, proto, status string, keepAlive bool) []byte {
	if proto != "HTTP/1.0" {
		proto = "HTTP/1.1"
	}
	b = append(b, proto...)
	b = append(b, ' ')
	b = append(b, status...)
	b = append(b, "\r\nDate: "...)
	b = time.Now().UTC().AppendFormat(b, "Mon, 02 Jan 2006 15:04:05 GMT")
	b = append(b, "\r\n"...)
	if !keepAlive {
		b = append(b, "Connection: close\r\n"...)
	} else if proto == "HTTP/1.0" {
		b = append(b, "Connection: keep-alive\r\n"...)
	}
	return b
}

// appendTextBody ends an answer with a short plain text body (withBody
// false: its header fields only, for HEAD).
func appendTextBody(b []byte, body string, withBody bool) []byte {
	b = append(b, "Content-Type: text/plain; charset=utf-8\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	if !withBody {
		return b
	}
	return append(b, body...)
}

// request is what the server needs of a request.
type request struct {
	method, path, proto string
	keepAlive           bool
}

var errBadRequest = errors.New("bad request")

// readRequest reads a request line and header section (RFC 9112 §2-§5).
// A request with a body (Content-Length other than 0, Transfer-Encoding)
// is refused: GET and HEAD have none, and the connection could not be
// reused without reading it.
func readRequest(br *bufio.Reader) (request, error) {
	var r request
	n := 0
	line, err := readLine(br, &n)
	for err == nil && len(line) == 0 { // RFC 9112 §2.2: ignore empty lines before the request line
		line, err = readLine(br, &n)
	}
	if err != nil {
		return r, err
	}
	method, rest, ok1 := bytes.Cut(line, []byte{' '})
	target, proto, ok2 := bytes.Cut(rest, []byte{' '})
	if !ok1 || !ok2 || len(method) == 0 || len(target) == 0 || !bytes.HasPrefix(proto, []byte("HTTP/1.")) || len(proto) != 8 {
		return r, errBadRequest
	}
	r.method, r.proto = string(method), string(proto)
	if i := bytes.Index(target, []byte("://")); i >= 0 && target[0] != '/' { // absolute-form
		target = target[i+3:]
		if j := bytes.IndexByte(target, '/'); j >= 0 {
			target = target[j:]
		} else {
			target = []byte("/")
		}
	}
	if i := bytes.IndexByte(target, '?'); i >= 0 {
		target = target[:i]
	}
	r.path = string(target)
	r.keepAlive = r.proto != "HTTP/1.0"
	for {
		line, err := readLine(br, &n)
		if err != nil {
			return r, err
		}
		if len(line) == 0 {
			return r, nil
		}
		name, value, ok := bytes.Cut(line, []byte{':'})
		if !ok || len(name) == 0 {
			return r, errBadRequest
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Connection")):
			for _, tok := range bytes.Split(value, []byte{','}) {
				switch tok = bytes.TrimSpace(tok); {
				case bytes.EqualFold(tok, []byte("close")):
					r.keepAlive = false
				case bytes.EqualFold(tok, []byte("keep-alive")) && r.proto == "HTTP/1.0":
					r.keepAlive = true
				}
			}
		case bytes.EqualFold(name, []byte("Content-Length")):
			if string(value) != "0" {
				return r, errBadRequest
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			return r, errBadRequest
		}
	}
}

// readLine reads one CRLF- (or LF-) terminated line, counting the octets
// of the header section in *n.
func readLine(br *bufio.Reader, n *int) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	*n += len(line)
	if errors.Is(err, bufio.ErrBufferFull) || *n > maxHeader {
		return nil, errBadRequest
	}
	if err != nil {
		if len(line) > 0 {
			return nil, errBadRequest // cut short
		}
		return nil, err
	}
	line = bytes.TrimSuffix(line[:len(line)-1], []byte{'\r'})
	return line, nil
}
