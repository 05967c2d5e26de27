package llc

import "time"

// The measured drain rate. SetDrainRate gives the rate the MS's coding
// scheme and timeslots promise (DrainRate). An MS that shares its PDCHs
// with other MSs' TBFs, gives blocks to its uplink's PACKET UPLINK ACK/NACK
// or retransmits drains less: with two downloads on the same four PDCHs
// each drains at about half of it. The AQM settings derived from the rate
// are meant in time (RED's min and max are the backlog drained in the
// automatic target, CoDel's automatic target is 1.5 MTU-times, PIE's delay
// estimate divides by the rate), so with the promised rate alone the queue
// of an MS that gets half its blocks stands twice as long as intended.
//
// The queue therefore measures what actually leaves it while it is
// backlogged, as PIE estimates its departure rate (RFC 8033 §5.1 and
// Appendix A, dq_rate: the octets departed in a measurement cycle over the
// cycle's duration; a cycle runs only while the queue holds data): a frame
// handed out by Dequeue is taken to be on the air until the next Dequeue,
// so the octets of the frames handed out since a cycle began, over the
// time since, are the drain rate whenever the queue was never empty in
// between. Cycles count at least rateCycle octets; the estimate is an
// EWMA (weight 2^-rateShift) of the cycles. The rate in force for the
// AQM is the smaller of the promised and the measured one (rate()).
//
// A cycle is abandoned when the queue runs empty after a Dequeue (the next
// Dequeue may wait for arrivals) and when a frame is put back (a TBF was
// replaced); StopTransmit (the MS's DL TBF ended) forgets the estimate: the
// next TBF may have other slots and other neighbours.
const (
	rateCycle = 2 * MaxFrameLen
	rateShift = 2
)

type drainMeter struct {
	start  time.Duration // cycle start (a Dequeue time)
	octets int32         // octets drained since start, up to the last frame
	last   int32         // octets of the frame handed out last, on the air until the next Dequeue
	rate   int32         // estimate, octets per second; 0 none yet
	on     bool          // a cycle is running
}

// dequeued notes a frame of n octets handed out at now; backlog reports
// whether the queue still holds frames after it.
func (m *drainMeter) dequeued(now time.Duration, n int, backlog bool) {
	if m.on {
		m.octets += m.last
		if el := now - m.start; m.octets >= rateCycle && el > 0 {
			s := int32(min(int64(m.octets)*int64(time.Second)/int64(el), 1<<30))
			if m.rate == 0 {
				m.rate = s
			} else {
				m.rate += (s - m.rate) >> rateShift
			}
			m.start, m.octets = now, 0
		}
	} else {
		m.on, m.start, m.octets = true, now, 0
	}
	m.last = int32(n)
	if !backlog {
		m.on = false
	}
}

// rateNow is the drain rate in force: the promised rate (SetDrainRate, 0
// unknown), or the measured one where that is lower or the promised one is
// unknown.
func (q *Queue) rateNow() int32 {
	if m := q.meter.rate; m > 0 && (q.rate == 0 || m < q.rate) {
		return m
	}
	return q.rate
}

// MeasuredRate is the measured drain rate in octets per second (0 while
// none has been measured since the last StopTransmit).
func (q *Queue) MeasuredRate() int { return int(q.meter.rate) }
