//go:build !linux

package pcu

import (
	"context"
	"errors"
)

// The engine loop is Linux only (loop_linux.go): gopcu runs next to
// OsmoBTS, which is Linux only, and serves its PCU socket, a unix
// SOCK_SEQPACKET socket, from an epoll set. Elsewhere the engine's code
// builds and its unit tests run (they drive the handlers directly), but
// Run returns errNeedsLinux.

var errNeedsLinux = errors.New("gopcu needs Linux: OsmoBTS's PCU socket is a Linux unix SEQPACKET socket served by epoll")

type poller struct{}

func (p *poller) wake() {}

type btsSock struct{}

func (e *Engine) runLoop(ctx context.Context) error { return errNeedsLinux }

func (e *Engine) writeBTS([]byte) error { return errNotConnected }

// canPollNS: no loop, no NS socket to poll.
func (e *Engine) canPollNS() bool { return false }

func (e *Engine) pollSock(s *gbSock) bool { return false }
