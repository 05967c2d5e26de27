//go:build !linux

package nsudp

import "errors"

type readNow struct{}

var errNoReadNow = errors.New("nsudp: ReadNow needs Linux")

// Fd is not available off Linux: make the UDP with readers.
func (u *UDP) Fd(i int) (int, error) { return -1, errNoReadNow }

// ReadNow is not available off Linux: make the UDP with readers.
func (u *UDP) ReadNow(i, max int, deliver func(Datagram) bool) (int, error) {
	return 0, errNoReadNow
}
