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
	"syscall"
	"time"

	"github.com/gopcu/gopcu/gsmtap"
	"github.com/gopcu/gopcu/tests/labnet"
	"github.com/gopcu/gopcu/tests/msnet"
	"github.com/gopcu/gopcu/tests/netns"
	"github.com/gopcu/gopcu/tests/vum"
)

func main() {
	n := flag.Int("n", 1, "number of MSs")
	apn := flag.String("apn", "internet", "APN of the PDP contexts")
	prefix := flag.String("netns-prefix", "gopcu-ms", "MS namespaces are <prefix><k>")
	status := flag.String("status", "", "status file (MS_NETNS lines, then READY or FAILED: ...)")
	timeout := flag.Duration("timeout", 60*time.Second, "time for all MSs to attach and activate")
	class := flag.Int("class", 10, "GPRS multislot class")
	mtu := flag.Int("mtu", 1500, "MTU of the MS TUN devices")
	pcap := flag.String("gsmtap-pcap", "", "write every virtual Um frame to this pcap (GSMTAP/UDP)")
	imsiBase := flag.Uint64("imsi", 901700000000001, "IMSI of the first MS (the next ones count up)")
	verbose := flag.Bool("v", false, "log the stacks")
	rau := flag.Bool("rau", false, "do a periodic routing area update after the attach (osmo-sgsn answers with a new P-TMSI)")
	debug := flag.Bool("debug", false, "log every overtaken LLC frame and lost N-PDU")
	umNetns := flag.String("um-netns", "", "network namespace of osmo-bts-virtual's virtual Um (default: the current one)")
	simK := flag.String("sim-k", "", "USIM key K (32 hex digits; with -sim-opc the MSs answer authentication with MILENAGE)")
	simOPc := flag.String("sim-opc", "", "USIM OPc (32 hex digits)")
	fill := flag.Bool("fill", true, "send an empty uplink block on every PDCH for each radio block no MS uses, as a BTS's PHY reports every block (osmo-pcu 1.1.0 needs one DATA.ind per block)")
	flag.Parse()
	log.SetFlags(log.Ltime | log.Lmicroseconds)

	writeStatus := func(lines ...string) {
		if *status == "" {
			return
		}
		tmp := *status + ".tmp"
		os.WriteFile(tmp, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
		os.Rename(tmp, *status)
	}
	fail := func(err error) {
		writeStatus("FAILED: " + err.Error())
		log.Fatal(err)
	}

	var tap func(vum.Frame)
	if *pcap != "" {
		f, err := os.Create(*pcap)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		w, err := gsmtap.NewPcapWriter(f)
		if err != nil {
			fail(err)
		}
		frames := make(chan vum.Frame, 8192)
		tap = func(fr vum.Frame) {
			select {
			case frames <- fr:
			default:
			}
		}
		go func() {
			for fr := range frames {
				h := fr.Hdr
				w.Write(fr.At, &h, fr.Payload)
			}
		}()
	}
	var um *vum.Um
	var err error
	if *umNetns != "" {
		// Only the Um sockets live in the BTS's namespace: labms itself
		// stays in the host's, so the MS namespaces it adds are visible
		// to everyone (inside "ip netns exec", /run/netns mounts would
		// stay in a private mount namespace).
		err = (&netns.NS{Name: *umNetns}).Do(func() (err error) { um, err = vum.Open(vum.Config{Fill: *fill}, tap); return })
	} else {
		um, err = vum.Open(vum.Config{Fill: *fill}, tap)
	}
	if err != nil {
		fail(fmt.Errorf("virtual Um: %w", err))
	}
	defer um.Close()
	r := labnet.NewRadio(um, time.Now().UnixNano())
	if *verbose {
		r.Log = log.Printf
	}
	rai := msnet.RAI{MCC: 901, MNC: 70, LAC: 1, RAC: 0}
	var sim *msnet.Milenage
	if *simK != "" || *simOPc != "" {
		k, err1 := hex.DecodeString(*simK)
		opc, err2 := hex.DecodeString(*simOPc)
		if err1 != nil || err2 != nil || len(k) != 16 || len(opc) != 16 {
			fail(fmt.Errorf("-sim-k and -sim-opc need 32 hex digits each"))
		}
		sim = new(msnet.Milenage)
		copy(sim.K[:], k)
		copy(sim.OPc[:], opc)
	}
	for k := 0; k < *n; k++ {
		imsi := fmt.Sprintf("%015d", *imsiBase+uint64(k))
		p := r.AddPhone(msnet.Config{IMSI: imsi, IMEI: fmt.Sprintf("35000000%07d", k), RAI: rai, APN: *apn, SIM: sim}, *class)
		p.Stack.Debug = *debug
		p.Stack.Trace = os.Getenv("LABMS_TRACE") == "1"
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	radioDone := make(chan error, 1)
	go func() { radioDone <- r.Run(ctx) }()

	var names []string
	cleanup := func() {
		for _, nm := range names {
			labnet.DeleteNamespace(nm)
		}
	}
	defer cleanup()

	// Attach and activate one MS after the other (each has its own TBFs;
	// in parallel they only contend on the RACH).
	deadline := time.Now().Add(*timeout)
	var lines []string
	for _, p := range r.Phones {
		p := p
		// GMM and SM repeat their requests (T3310 and T3380 are 15 s and
		// 30 s, TS 24.008 §11.2.2; the lab uses 10 s).
		if err := retry(ctx, r, deadline, fmt.Sprintf("ms%d attach", p.Index), p.Stack.Attach, func() bool {
			return p.Stack.GMM == msnet.GMMAttached || p.Stack.Err != nil
		}); err != nil {
			fail(err)
		}
		if *rau {
			if err := retry(ctx, r, deadline, fmt.Sprintf("ms%d routing area update", p.Index), func() { p.Stack.RoutingAreaUpdate(true) }, func() bool {
				return p.Stack.RAUs > 0 || p.Stack.Err != nil
			}); err != nil {
				fail(err)
			}
		}
		if err := retry(ctx, r, deadline, fmt.Sprintf("ms%d PDP context", p.Index), p.Stack.ActivatePDP, func() bool {
			return p.Stack.PDPUp || p.Stack.Err != nil
		}); err != nil {
			fail(err)
		}
		var addr netip.Addr
		var serr error
		r.Do(ctx, func() { addr, serr = p.Stack.Addr, p.Stack.Err })
		if serr != nil {
			fail(fmt.Errorf("ms%d: %w", p.Index, serr))
		}
		name := fmt.Sprintf("%s%d", *prefix, p.Index)
		DeleteStale(name)
		if err := labnet.AddNamespace(name); err != nil {
			fail(err)
		}
		names = append(names, name)
		tun, err := labnet.OpenTUN(name, "gprs0", addr, *mtu)
		if err != nil {
			fail(err)
		}
		go func() {
			if err := r.ConnectTUN(ctx, p, tun); err != nil {
				log.Printf("ms%d tun: %v", p.Index, err)
			}
		}()
		var ptmsi uint32
		r.Do(ctx, func() { ptmsi = p.Stack.PTMSI })
		log.Printf("ms%d: attached (P-TMSI %08x), PDP context %v, netns %s", p.Index, ptmsi, addr, name)
		lines = append(lines, fmt.Sprintf("MS_NETNS=%s MS_ADDR=%s", name, addr))
	}
	writeStatus(append(lines, "READY")...)

	if *verbose {
		go func() {
			t := time.NewTicker(5 * time.Second)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
				r.Do(ctx, func() {
					for _, p := range r.Phones {
						log.Printf("ms%d: %s aborted=%d reassigned=%d ulIP=%d dlIP=%d dropped=%d llcLate=%d sndcpLost=%d um=%+v", p.Index, p.MS.Debug(),
							p.MS.Aborted, p.MS.ULReassigned, p.Stack.ULIP, p.Stack.DLIP, p.Dropped, p.Stack.LateUI, p.Stack.SNDCPLost, um.Stats())
					}
				})
			}
		}()
	}

	select {
	case <-ctx.Done():
	case err := <-radioDone:
		log.Printf("radio stopped: %v", err)
	}
	// Detach (best effort, a second at most) before the namespaces go.
	dctx, dcancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer dcancel()
	if ctx.Err() != nil {
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
	st := um.Stats()
	log.Printf("virtual Um: %+v", st)
	for _, p := range r.Phones {
		log.Printf("ms%d: UL IP %d, DL IP %d, dropped %d, LLC dup %d, LLC late %d, SNDCP lost %d, XID %d, TBFs aborted %d, authentications %d",
			p.Index, p.Stack.ULIP, p.Stack.DLIP, p.Dropped, p.Stack.DupUI, p.Stack.LateUI, p.Stack.SNDCPLost, p.Stack.XIDs, p.MS.Aborted, p.Stack.Auths)
	}
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
