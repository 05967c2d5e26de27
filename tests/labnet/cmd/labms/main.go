// Command labms runs N emulated MSs on osmo-bts-virtual's virtual Um (as
// root; -um-netns names the BTS's network namespace). Each MS attaches to the
// SGSN, activates a PDP context and gets a network namespace with a TUN
// device carrying the context (its PDP address, default route), so Linux's
// ping, TCP and curl run from the MS. When every MS is up it writes
// "MS_NETNS=<name> MS_ADDR=<ip>" lines and "READY" to the status file; on
// SIGTERM or SIGINT it detaches the MSs and removes their namespaces.
//
//	labms -um-netns <lab> -n 2 -apn internet -status /tmp/x/labms.status
package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gopcu/gopcu/gsmtap"
	"github.com/gopcu/gopcu/internal/emu/msnet"
	"github.com/gopcu/gopcu/internal/emu/netns"
	"github.com/gopcu/gopcu/internal/ticker"
	"github.com/gopcu/gopcu/tests/labnet"
	"github.com/gopcu/gopcu/tests/vum"
)

// options are labms's command line.
type options struct {
	n        int
	apn      string
	prefix   string
	status   string
	timeout  time.Duration
	class    int
	mtu      int
	pcap     string
	imsiBase uint64
	verbose  bool
	rau      bool
	debug    bool
	umNetns  string
	simK     string
	simOPc   string
	fill     bool
	gea3     bool
	trace    string
}

func parseFlags() *options {
	o := &options{}
	flag.IntVar(&o.n, "n", 1, "number of MSs")
	flag.StringVar(&o.apn, "apn", "internet", "APN of the PDP contexts")
	flag.StringVar(&o.prefix, "netns-prefix", "gopcu-ms", "MS namespaces are <prefix><k>")
	flag.StringVar(&o.status, "status", "", "status file (MS_NETNS lines, then READY or FAILED: ...)")
	flag.DurationVar(&o.timeout, "timeout", 60*time.Second, "time for all MSs to attach and activate")
	flag.IntVar(&o.class, "class", 10, "GPRS multislot class")
	flag.IntVar(&o.mtu, "mtu", 1500, "MTU of the MS TUN devices")
	flag.StringVar(&o.pcap, "gsmtap-pcap", "", "write every virtual Um frame to this pcap (GSMTAP/UDP)")
	flag.Uint64Var(&o.imsiBase, "imsi", 901700000000001, "IMSI of the first MS (the next ones count up)")
	flag.BoolVar(&o.verbose, "v", false, "log the stacks")
	flag.BoolVar(&o.rau, "rau", false, "do a periodic routing area update after the attach (osmo-sgsn answers with a new P-TMSI)")
	flag.BoolVar(&o.debug, "debug", false, "log every overtaken LLC frame and lost N-PDU")
	flag.StringVar(&o.umNetns, "um-netns", "", "network namespace of osmo-bts-virtual's virtual Um (default: the current one)")
	flag.StringVar(&o.simK, "sim-k", "", "USIM key K (32 hex digits; with -sim-opc the MSs answer authentication with MILENAGE)")
	flag.StringVar(&o.simOPc, "sim-opc", "", "USIM OPc (32 hex digits)")
	flag.BoolVar(&o.gea3, "gea3", false, "announce GEA/3 and cipher LLC with it (needs -sim-k, -sim-opc); an MS whose SGSN does not select GEA/3 fails")
	flag.BoolVar(&o.fill, "fill", true, "send an empty uplink block on every PDCH for each radio block no MS uses, as a BTS's PHY reports every block (osmo-pcu 1.1.0 needs one DATA.ind per block)")
	flag.StringVar(&o.trace, "ul-trace", "", "write each MS's uplink timeline to this file: \"<unix time> ms<k> <event> <n> <fn>\" (msemu.MS.Trace)")
	flag.Parse()
	return o
}

func main() {
	o := parseFlags()
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	tap, closeTap := o.gsmtapTap()
	defer closeTap()
	um := o.openUm(tap)
	defer um.Close()
	r := labnet.NewRadio(um, time.Now().UnixNano())
	if o.verbose {
		r.Log = log.Printf
	}
	o.addPhones(r)
	defer o.ulTrace(r)()
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	radioDone := make(chan error, 1)
	go func() { radioDone <- r.Run(ctx) }()

	var names []string
	defer func() {
		for _, nm := range names {
			labnet.DeleteNamespace(nm)
		}
	}()
	// Attach and activate one MS after the other (each has its own TBFs;
	// in parallel they only contend on the RACH).
	deadline := time.Now().Add(o.timeout)
	var lines []string
	for _, p := range r.Phones {
		lines = append(lines, o.bringUp(ctx, r, p, deadline, &names))
	}
	o.writeStatus(append(lines, "READY")...)
	if o.verbose {
		go logStacks(ctx, r, um)
	}

	select {
	case <-ctx.Done():
	case err := <-radioDone:
		log.Printf("radio stopped: %v", err)
	}
	if ctx.Err() != nil {
		detach(r)
	}
	st := um.Stats()
	log.Printf("virtual Um: %+v", st)
	for _, p := range r.Phones {
		log.Printf("ms%d: UL IP %d, DL IP %d, dropped %d, LLC dup %d, LLC late %d, SNDCP lost %d, XID %d, TBFs aborted %d, stale DL IMM ASS ignored %d, authentications %d",
			p.Index, p.Stack.ULIP, p.Stack.DLIP, p.Dropped, p.Stack.DupUI, p.Stack.LateUI, p.Stack.SNDCPLost, p.Stack.XIDs, p.MS.Aborted, p.MS.IgnoredDLImmAss, p.Stack.Auths)
	}
}

// writeStatus replaces the status file with lines.
func (o *options) writeStatus(lines ...string) {
	if o.status == "" {
		return
	}
	tmp := o.status + ".tmp"
	os.WriteFile(tmp, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	os.Rename(tmp, o.status)
}

// fail writes the error to the status file and exits.
func (o *options) fail(err error) {
	o.writeStatus("FAILED: " + err.Error())
	log.Fatal(err)
}

// gsmtapTap returns the tap that writes the virtual Um frames to the
// -gsmtap-pcap file (nil without one) and what closes that file.
func (o *options) gsmtapTap() (func(vum.Frame), func()) {
	if o.pcap == "" {
		return nil, func() {}
	}
	f, err := os.Create(o.pcap)
	if err != nil {
		o.fail(err)
	}
	w, err := gsmtap.NewPcapWriter(f)
	if err != nil {
		f.Close()
		o.fail(err)
	}
	frames := make(chan vum.Frame, 8192)
	go func() {
		for fr := range frames {
			h := fr.Hdr
			w.Write(fr.At, &h, fr.Payload)
		}
	}()
	tap := func(fr vum.Frame) {
		select {
		case frames <- fr:
		default:
		}
	}
	return tap, func() { f.Close() }
}

// openUm opens the virtual Um sockets.
func (o *options) openUm(tap func(vum.Frame)) *vum.Um {
	var um *vum.Um
	var err error
	if o.umNetns != "" {
		// Only the Um sockets live in the BTS's namespace: labms itself
		// stays in the host's, so the MS namespaces it adds are visible
		// to everyone (inside "ip netns exec", /run/netns mounts would
		// stay in a private mount namespace).
		err = (&netns.NS{Name: o.umNetns}).Do(func() (err error) { um, err = vum.Open(vum.Config{Fill: o.fill}, tap); return })
	} else {
		um, err = vum.Open(vum.Config{Fill: o.fill}, tap)
	}
	if err != nil {
		o.fail(fmt.Errorf("virtual Um: %w", err))
	}
	return um
}

// addPhones adds the -n phones with consecutive IMSIs.
func (o *options) addPhones(r *labnet.Radio) {
	rai := msnet.RAI{MCC: 901, MNC: 70, LAC: 1, RAC: 0}
	sim := o.usim()
	if o.gea3 && sim == nil {
		o.fail(fmt.Errorf("-gea3 needs -sim-k and -sim-opc (the Kc comes from the USIM)"))
	}
	for k := 0; k < o.n; k++ {
		imsi := fmt.Sprintf("%015d", o.imsiBase+uint64(k))
		// OsmoSGSN: the lab's SGSN is osmo-sgsn, whose IOV-UI octets
		// and downlink OC differ from TS 44.064 (msnet.Config)
		p := r.AddPhone(msnet.Config{IMSI: imsi, IMEI: fmt.Sprintf("35000000%07d", k), RAI: rai, APN: o.apn, SIM: sim,
			GEA3: o.gea3, OsmoSGSN: true}, o.class)
		p.Stack.Debug = o.debug
		p.Stack.Trace = os.Getenv("LABMS_TRACE") == "1"
	}
}

// ulTrace sets every phone's msemu.MS.Trace to write a line to
// -ul-trace (the radio goroutine calls it); the function it returns
// closes the file.
func (o *options) ulTrace(r *labnet.Radio) func() {
	if o.trace == "" {
		return func() {}
	}
	f, err := os.Create(o.trace)
	if err != nil {
		o.fail(err)
	}
	w := bufio.NewWriter(f)
	var mu sync.Mutex
	for _, p := range r.Phones {
		k := p.Index
		p.MS.Trace = func(ev string, n int, fn uint32) {
			mu.Lock()
			fmt.Fprintf(w, "%.6f ms%d %s %d %d\n", float64(time.Now().UnixMicro())/1e6, k, ev, n, fn)
			mu.Unlock()
		}
	}
	return func() {
		mu.Lock()
		w.Flush()
		f.Close()
		mu.Unlock()
	}
}

// usim is the phones' MILENAGE USIM from -sim-k and -sim-opc (nil: none,
// the SGSN must not ask for authentication).
func (o *options) usim() *msnet.Milenage {
	if o.simK == "" && o.simOPc == "" {
		return nil
	}
	k, err1 := hex.DecodeString(o.simK)
	opc, err2 := hex.DecodeString(o.simOPc)
	if err1 != nil || err2 != nil || len(k) != 16 || len(opc) != 16 {
		o.fail(fmt.Errorf("-sim-k and -sim-opc need 32 hex digits each"))
	}
	sim := new(msnet.Milenage)
	copy(sim.K[:], k)
	copy(sim.OPc[:], opc)
	return sim
}

// bringUp attaches phone p, activates its PDP context and gives it a
// namespace (added to names) whose TUN device carries the context; it
// returns the phone's status line.
func (o *options) bringUp(ctx context.Context, r *labnet.Radio, p *labnet.Phone, deadline time.Time, names *[]string) string {
	// GMM and SM repeat their requests (T3310 and T3380 are 15 s and
	// 30 s, TS 24.008 §11.2.2; the lab uses 10 s).
	if err := retry(ctx, r, deadline, fmt.Sprintf("ms%d attach", p.Index), p.Stack.Attach, func() bool {
		return p.Stack.GMM == msnet.GMMAttached || p.Stack.Err != nil
	}); err != nil {
		o.fail(err)
	}
	if o.rau {
		if err := retry(ctx, r, deadline, fmt.Sprintf("ms%d routing area update", p.Index), func() { p.Stack.RoutingAreaUpdate(true) }, func() bool {
			return p.Stack.RAUs > 0 || p.Stack.Err != nil
		}); err != nil {
			o.fail(err)
		}
	}
	if err := retry(ctx, r, deadline, fmt.Sprintf("ms%d PDP context", p.Index), p.Stack.ActivatePDP, func() bool {
		return p.Stack.PDPUp || p.Stack.Err != nil
	}); err != nil {
		o.fail(err)
	}
	var addr netip.Addr
	var serr error
	var gea int
	r.Do(ctx, func() { addr, serr, gea = p.Stack.Addr, p.Stack.Err, p.Stack.Ciphering() })
	if serr != nil {
		o.fail(fmt.Errorf("ms%d: %w", p.Index, serr))
	}
	if o.gea3 && gea != msnet.GEA3 {
		o.fail(fmt.Errorf("ms%d: the SGSN did not select GEA/3 (GEA/%d)", p.Index, gea))
	}
	name := fmt.Sprintf("%s%d", o.prefix, p.Index)
	DeleteStale(name)
	if err := labnet.AddNamespace(name); err != nil {
		o.fail(err)
	}
	*names = append(*names, name)
	tun, err := labnet.OpenTUN(name, "gprs0", addr, o.mtu)
	if err != nil {
		o.fail(err)
	}
	go func() {
		if err := r.ConnectTUN(ctx, p, tun); err != nil {
			log.Printf("ms%d tun: %v", p.Index, err)
		}
	}()
	var ptmsi uint32
	r.Do(ctx, func() { ptmsi = p.Stack.PTMSI })
	log.Printf("ms%d: attached (P-TMSI %08x, GEA/%d), PDP context %v, netns %s", p.Index, ptmsi, gea, addr, name)
	return fmt.Sprintf("MS_NETNS=%s MS_ADDR=%s", name, addr)
}

// logStacks logs every phone's state every 5 s until ctx ends.
func logStacks(ctx context.Context, r *labnet.Radio, um *vum.Um) {
	ticker.Every(ctx, 5*time.Second, func(time.Time) bool {
		r.Do(ctx, func() {
			for _, p := range r.Phones {
				log.Printf("ms%d: %s aborted=%d reassigned=%d staleIA=%d ulIP=%d dlIP=%d dropped=%d llcLate=%d sndcpLost=%d gea=%d ciphered=%d deciphered=%d cipherDrops=%d um=%+v", p.Index, p.MS.Debug(),
					p.MS.Aborted, p.MS.ULReassigned, p.MS.IgnoredDLImmAss, p.Stack.ULIP, p.Stack.DLIP, p.Dropped, p.Stack.LateUI, p.Stack.SNDCPLost,
					p.Stack.Ciphering(), p.Stack.Ciphered, p.Stack.Deciphered, p.Stack.CipherDrops, um.Stats())
			}
		})
		return true
	})
}

// detach detaches the phones (best effort, a second at most) before the
// namespaces go; the radio runs again for it.
func detach(r *labnet.Radio) {
	dctx, dcancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer dcancel()
	rctx, rcancel := context.WithCancel(dctx)
	go r.Run(rctx)
	for _, p := range r.Phones {
		r.Post(p.Stack.Detach)
	}
	r.Wait(dctx, 2*time.Second, "detach", func() bool {
		for _, p := range r.Phones {
			if p.Stack.GMM != msnet.GMMDetached {
				return false
			}
		}
		return true
	})
	rcancel()
}

// retry sends a request every 10 s until cond holds or the deadline passes.
func retry(ctx context.Context, r *labnet.Radio, deadline time.Time, what string, send func(), cond func() bool) error {
	for {
		r.Post(send)
		wait := min(10*time.Second, time.Until(deadline))
		err := r.Wait(ctx, wait, what, cond)
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		log.Printf("%s: %v; again", what, err)
	}
}

// DeleteStale removes a namespace of the same name left by an earlier run.
func DeleteStale(name string) {
	if _, err := os.Stat(filepath.Join("/run/netns", name)); err == nil {
		labnet.DeleteNamespace(name)
	}
}
