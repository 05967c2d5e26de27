package driver

import (
	"errors"

	"github.com/gopcu/gopcu/pcu/pcuif"
)

// errTxFull: the socket's send buffer and maxTxQueue messages behind it
// are full (counted as tx:dropped by the engine).
var errTxFull = errors.New("transmit queue to the BTS full")

// maxTxQueue bounds the messages waiting for the BTS socket: beyond it a
// message is dropped and counted (tx:dropped).
const maxTxQueue = 512

// txMsg is one encoded message waiting for the BTS socket.
type txMsg struct {
	n int
	b [pcuif.BufSize]byte
}

// txQueue holds, oldest first, the messages to the BTS that the socket's
// send buffer did not take yet (the loop writes them when the socket is
// writable again). It is the loop's: one goroutine, no locks. A ring of
// at most maxTxQueue messages whose buffers are kept for reuse, so a BTS
// that reads slowly costs no allocation per message once the queue has
// been as long before.
type txQueue struct {
	ring []*txMsg // made at the first push, maxTxQueue long
	head int      // index of the oldest message
	n    int      // messages queued
	free []*txMsg // buffers to reuse
	peak int      // the most messages queued at once (tests)
}

// len is the number of messages queued.
func (q *txQueue) len() int { return q.n }

// push queues a copy of b; errTxFull when maxTxQueue messages wait.
func (q *txQueue) push(b []byte) error {
	if q.n >= maxTxQueue {
		return errTxFull
	}
	if q.ring == nil {
		q.ring = make([]*txMsg, maxTxQueue)
	}
	var m *txMsg
	if k := len(q.free); k > 0 {
		m = q.free[k-1]
		q.free[k-1] = nil
		q.free = q.free[:k-1]
	} else {
		m = new(txMsg)
	}
	m.n = copy(m.b[:], b)
	q.ring[(q.head+q.n)%maxTxQueue] = m
	q.n++
	q.peak = max(q.peak, q.n)
	return nil
}

// front is the oldest message; the queue must not be empty.
func (q *txQueue) front() []byte {
	m := q.ring[q.head]
	return m.b[:m.n]
}

// pop drops the oldest message (written); the queue must not be empty.
func (q *txQueue) pop() {
	q.free = append(q.free, q.ring[q.head])
	q.ring[q.head] = nil
	q.head = (q.head + 1) % maxTxQueue
	q.n--
}

// clear drops every queued message (the connection ended); the buffers
// stay for the next connection.
func (q *txQueue) clear() {
	for q.n > 0 {
		q.pop()
	}
	q.head = 0
}
