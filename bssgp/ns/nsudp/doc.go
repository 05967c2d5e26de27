// Package nsudp is the UDP transport of NS (3GPP TS 48.016 §5.2, NS over
// IP): one socket per local bind and one reader goroutine per socket that
// hands each datagram to the caller (gopcu posts them into its engine
// loop, which feeds the nse.NSE). UDP.Send is the nse.Transport. Datagrams
// arrive in pooled buffers: Datagram.Release gives one back once handled,
// so that a busy socket does not allocate per datagram.
package nsudp
