package daemon

import (
	"strconv"

	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/vty"
)

// installNSVTY gives libosmogb's NS commands their handlers: `show ns`
// (hidden, entities then binds), `show ns binds|entities [stats]`, `show
// ns persistent` (the PCU's NSE is dynamic: nothing), `show ns
// (nsei|nsvc) <0-65535> [stats]`, and in ENABLE `nsvc <0-65535>
// (block|unblock|reset)` with libosmogb's answers (gprs_ns2_vty.c), so an
// operator can watch and drive the NS-VCs.
func installNSVTY(e *pcu.Engine, v *vty.VTY) {
	curNSE := e.NSE
	stats := func(c *vty.Context, i int) bool { return len(c.Args) > i && c.Args[i] == "stats" }
	set := func(cmd string, h vty.Handler) {
		if err := v.SetHandlerVE(cmd, h); err != nil {
			e.Logger().Error("cannot install VTY command", "cmd", cmd, "err", err)
		}
	}
	v.InstallVE("show ns", "Show running system information\nDisplay information about the NS protocol\n", func(c *vty.Context) error {
		if n := curNSE(); n != nil {
			now := e.GbNow()
			n.WriteEntity(c, now, false)
			n.WriteBinds(c, now, false, 0, 0)
		}
		return nil
	}, vty.Hidden())
	set("show ns binds [stats]", func(c *vty.Context) error {
		if n := curNSE(); n != nil {
			n.WriteBinds(c, e.GbNow(), stats(c, 0), 0, 0)
		}
		return nil
	})
	set("show ns entities [stats]", func(c *vty.Context) error {
		if n := curNSE(); n != nil {
			n.WriteEntity(c, e.GbNow(), stats(c, 0))
		}
		return nil
	})
	set("show ns persistent", func(*vty.Context) error { return nil })
	set("show ns (nsei|nsvc) <0-65535> [stats]", func(c *vty.Context) error {
		id, _ := strconv.Atoi(c.Args[1])
		n := curNSE()
		if c.Args[0] == "nsei" {
			if n == nil || int(n.Config().NSEI) != id {
				return vty.ErrWarning
			}
			n.WriteEntity(c, e.GbNow(), stats(c, 2))
			return nil
		}
		var vc *nse.VC
		if n != nil {
			vc = n.VCByNSVCI(uint16(id))
		}
		if vc == nil {
			c.Printf("No such NS Entity\n")
			return vty.ErrWarning
		}
		n.WriteVC(c, vc, e.GbNow(), stats(c, 2))
		return nil
	})
	if err := v.Enable().SetHandler("nsvc <0-65535> (block|unblock|reset)", func(c *vty.Context) error {
		id, _ := strconv.Atoi(c.Args[0])
		var vc *nse.VC
		if n := curNSE(); n != nil {
			vc = n.VCByNSVCI(uint16(id))
		}
		if vc == nil {
			c.Printf("Could not find NSVCI %05d\n", id)
			return vty.ErrWarning
		}
		now := e.GbNow()
		switch c.Args[1] {
		case "block":
			if vc.Block(now) != nil {
				c.Printf("The NS-VC %05d is already blocked.\n", id)
				return nil
			}
			c.Printf("The NS-VC %05d will be blocked.\n", id)
		case "unblock":
			if vc.Unblock(now) != nil {
				c.Printf("The NS-VC %05d is already unblocked.\n", id)
				return nil
			}
			c.Printf("The NS-VC %05d will be unblocked.\n", id)
		default:
			vc.Reset(now)
			c.Printf("The NS-VC %05d has been resetted.\n", id)
		}
		return nil
	}); err != nil {
		e.Logger().Error("cannot install VTY command", "cmd", "nsvc", "err", err)
	}
}
