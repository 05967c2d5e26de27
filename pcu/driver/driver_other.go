//go:build !linux

package driver

import (
	"context"
	"errors"

	"github.com/gopcu/gopcu/pcu"
)

// The driver's loop is Linux only (loop_linux.go): gopcu runs next to
// OsmoBTS, which is Linux only, and serves its PCU socket, a unix
// SOCK_SEQPACKET socket, from an epoll set. Elsewhere the engine's code
// builds and its unit tests run (they drive its input methods directly),
// but Run returns errNeedsLinux.

var errNeedsLinux = errors.New("gopcu needs Linux: OsmoBTS's PCU socket is a Linux unix SEQPACKET socket served by epoll")

type loop struct{}

func newLoop(e *pcu.Engine, o Options) (*loop, error) { return nil, errNeedsLinux }

func (l *loop) run(ctx context.Context) error { return errNeedsLinux }
