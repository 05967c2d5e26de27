package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/internal/emu/sgsnemu"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/internal/testutil/peertest"
)

const dashboardFile = "../../contrib/grafana-dashboard.json"

// The parts of Grafana's dashboard JSON model the check looks at.
type gfDashboard struct {
	Title         string       `json:"title"`
	UID           string       `json:"uid"`
	SchemaVersion int          `json:"schemaVersion"`
	Panels        []gfPanel    `json:"panels"`
	Templating    gfTemplating `json:"templating"`
	Inputs        []struct {
		Name     string `json:"name"`
		Type     string `json:"type"`
		PluginID string `json:"pluginId"`
	} `json:"__inputs"`
}

type gfTemplating struct {
	List []struct {
		Name  string          `json:"name"`
		Type  string          `json:"type"`
		Query json.RawMessage `json:"query"`
	} `json:"list"`
}

type gfDatasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type gfPanel struct {
	ID         int           `json:"id"`
	Type       string        `json:"type"`
	Title      string        `json:"title"`
	Datasource *gfDatasource `json:"datasource"`
	GridPos    *struct {
		X, Y, W, H int
	} `json:"gridPos"`
	Targets []struct {
		RefID      string        `json:"refId"`
		Expr       string        `json:"expr"`
		Datasource *gfDatasource `json:"datasource"`
	} `json:"targets"`
}

// loadDashboard reads contrib/grafana-dashboard.json and checks its
// structure: a Prometheus datasource input, panels with unique ids, a type,
// a title, a grid position inside Grafana's 24 columns, a datasource, and
// targets with unique refIds, an expr and a datasource; every $variable
// an expr uses is a template variable. It returns the exprs.
func loadDashboard(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d gfDashboard
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	if d.Title == "" || d.UID == "" || d.SchemaVersion < 30 {
		t.Errorf("title %q uid %q schemaVersion %d", d.Title, d.UID, d.SchemaVersion)
	}
	if len(d.Inputs) != 1 || d.Inputs[0].Type != "datasource" || d.Inputs[0].PluginID != "prometheus" {
		t.Errorf("__inputs: %+v, want one Prometheus datasource", d.Inputs)
	}
	dsUID := "${" + d.Inputs[0].Name + "}"
	vars := map[string]bool{"__rate_interval": true, "__interval": true, "__range": true}
	for _, v := range d.Templating.List {
		if v.Name == "" || v.Type == "" || len(v.Query) == 0 {
			t.Errorf("template variable %+v", v)
		}
		vars[v.Name] = true
	}
	if len(d.Panels) < 4 {
		t.Fatalf("%d panels", len(d.Panels))
	}
	ids := map[int]bool{}
	var exprs []string
	varRef := regexp.MustCompile(`\$(\w+)`)
	for _, p := range d.Panels {
		where := fmt.Sprintf("panel %d %q", p.ID, p.Title)
		if p.ID <= 0 || ids[p.ID] {
			t.Errorf("%s: id missing or not unique", where)
		}
		ids[p.ID] = true
		if p.Title == "" || (p.Type != "timeseries" && p.Type != "stat" && p.Type != "gauge" && p.Type != "bargauge" && p.Type != "table") {
			t.Errorf("%s: type %q", where, p.Type)
		}
		if p.GridPos == nil || p.GridPos.W <= 0 || p.GridPos.H <= 0 || p.GridPos.X < 0 || p.GridPos.X+p.GridPos.W > 24 {
			t.Errorf("%s: gridPos %+v", where, p.GridPos)
		}
		if p.Datasource == nil || p.Datasource.Type != "prometheus" || p.Datasource.UID != dsUID {
			t.Errorf("%s: datasource %+v, want prometheus %s", where, p.Datasource, dsUID)
		}
		if len(p.Targets) == 0 {
			t.Errorf("%s: no targets", where)
		}
		refs := map[string]bool{}
		for _, tg := range p.Targets {
			if tg.RefID == "" || refs[tg.RefID] {
				t.Errorf("%s: refId %q missing or not unique", where, tg.RefID)
			}
			refs[tg.RefID] = true
			if strings.TrimSpace(tg.Expr) == "" {
				t.Errorf("%s %s: no expr", where, tg.RefID)
			}
			if tg.Datasource == nil || tg.Datasource.Type != "prometheus" {
				t.Errorf("%s %s: datasource %+v", where, tg.RefID, tg.Datasource)
			}
			if strings.Count(tg.Expr, "(") != strings.Count(tg.Expr, ")") || strings.Count(tg.Expr, "{") != strings.Count(tg.Expr, "}") {
				t.Errorf("%s %s: unbalanced expr %q", where, tg.RefID, tg.Expr)
			}
			for _, m := range varRef.FindAllStringSubmatch(tg.Expr, -1) {
				if !vars[m[1]] {
					t.Errorf("%s %s: undefined variable $%s", where, tg.RefID, m[1])
				}
			}
			exprs = append(exprs, tg.Expr)
		}
	}
	return exprs
}

// metricNames are the gopcu metric names an expr reads.
var metricRef = regexp.MustCompile(`\bgopcu_[A-Za-z0-9_]+`)

// TestGrafanaDashboard checks contrib/grafana-dashboard.json's structure
// and that every metric it queries is on the /metrics page of a running
// gopcu: the daemon with --metrics-addr serves the BTS emulator with one
// emulated MS sending uplink data that the SGSN emulator echoes back as
// downlink data (so per-MS queue histograms and the BVC's counters exist).
func TestGrafanaDashboard(t *testing.T) {
	exprs := loadDashboard(t)
	want := map[string]bool{}
	for _, e := range exprs {
		for _, m := range metricRef.FindAllString(e, -1) {
			want[m] = true
		}
	}
	for _, must := range []string{"gopcu_ms_llc_sojourn_seconds_bucket", "gopcu_pcu_l1if_llc_dropped_codel_total",
		"gopcu_bts_llc_timeout_total", "gopcu_bts_pdch_occupied", "gopcu_bts_tbfs"} {
		if !want[must] {
			t.Errorf("the dashboard does not show %s", must)
		}
	}

	dir := t.TempDir()
	sg := peertest.SGSN(t, sgsnemu.Config{Echo: true, DLLifetime: 1000},
		sgsnemu.Callbacks{ULUnitdata: func(uint16, *bssgp.ULUnitdata, time.Duration) {}})
	sock := filepath.Join(dir, "pcu_bts")
	bts := peertest.BTS(t, sock, sg.Addr())
	metrics := fmt.Sprintf("127.0.0.1:%d", testutil.FreePort(t))
	cfg := filepath.Join(dir, "empty.cfg")
	os.WriteFile(cfg, nil, 0o644)
	s := testSettings(cfg, sock, 0)
	s.MetricsAddr = metrics
	d := testDaemon(t, s, nil, io.Discard)
	stop := goRun(d)
	defer func() {
		if err := stop(); err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("daemon: %v", err)
		}
	}()
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	if err := bts.WaitActive(wctx, 4); err != nil {
		t.Fatal(err)
	}
	cell := msemu.NewCell(bts, 1)
	ms := cell.AddMS(0xc2000000, "901700000100000", 12)
	for k := 0; k < 4; k++ {
		ms.SendLLC(msemu.UIFrame(3, uint16(k), make([]byte, 200)))
	}
	// Names seen in any scrape count: an MS's histogram goes away with
	// the MS (prom.Exporter.ForgetMS).
	seen := map[string]bool{}
	missing := func(body string) []string {
		var out []string
		for m := range want {
			if regexp.MustCompile(`(?m)^` + m + `[{ ]`).MatchString(body) {
				seen[m] = true
			}
			if !seen[m] {
				out = append(out, m)
			}
		}
		sort.Strings(out)
		return out
	}
	for deadline := time.Now().Add(20 * time.Second); ; {
		if err := cell.Run(context.Background(), 20); err != nil {
			t.Fatal(err)
		}
		var body string
		if b, err := scrape(metrics); err == nil {
			body = b
		}
		m := missing(body)
		if len(m) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics the dashboard uses but gopcu does not serve: %v", m)
		}
	}
	t.Logf("%d metric names of the dashboard found on /metrics", len(want))
}
