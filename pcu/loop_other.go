//go:build !linux

package pcu

import (
	"context"

	"github.com/gopcu/gopcu/pcu/pcuif"
)

// Without epoll the engine runs the channel loop (loop_linux.go has the
// epoll loop).

type poller struct{}

func (p *poller) wake() {}

type btsSock struct{}

func (e *Engine) runEpoll(ctx context.Context) error { return e.runChannels(ctx) }

func (e *Engine) writeBTS([]byte) error { return pcuif.ErrNotConnected }

// canPollNS: no epoll loop here; NS sockets have reader goroutines.
func (e *Engine) canPollNS() bool { return false }

func (e *Engine) pollSock(s *gbSock) bool { return false }
