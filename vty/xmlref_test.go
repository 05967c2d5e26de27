package vty

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseXMLMode(t *testing.T) {
	for _, c := range []struct {
		name string
		mode XMLMode
	}{{"default", XMLDefault}, {"expert", XMLExpert}, {"hidden", XMLHidden}} {
		m, err := ParseXMLMode(c.name)
		if err != nil || m != c.mode || m.String() != c.name || m.Description() == "" {
			t.Errorf("%s: %v %v %q", c.name, m, err, m.Description())
		}
	}
	if _, err := ParseXMLMode("Expert"); err == nil || err.Error() != "Unknown VTY reference generation mode 'Expert'" {
		t.Errorf("err %v", err)
	}
}

// TestXMLReferenceRoundTrip writes a tree's XML reference, parses it back
// and renders Markdown: commands, attributes and token help survive, hidden
// commands appear in expert mode only, escaping is undone.
func TestXMLReferenceRoundTrip(t *testing.T) {
	v := New(AppInfo{Name: "Test", UsrAttrs: []UsrAttr{{Letter: 'n', Desc: "applies when a new TBF begins"}}})
	v.View().Install("show thing <1-5>", "Show running system information\nA thing\nIts <number>\n", func(*Context) error { return nil })
	v.View().Install("secret (a|b)", "Secret\nA\nB\n", func(*Context) error { return nil }, Hidden())
	for _, mode := range []XMLMode{XMLDefault, XMLExpert} {
		var x bytes.Buffer
		v.WriteXMLReference(&x, mode)
		d, err := ParseXMLReference(&x)
		if err != nil {
			t.Fatal(err)
		}
		view := d.Node("view")
		if view == nil || d.Node("_common_cmds_") == nil {
			t.Fatalf("%v: nodes %+v", mode, d.Nodes)
		}
		var show, secret *RefCmd
		for i := range view.Commands {
			switch view.Commands[i].ID {
			case "show thing <1-5>":
				show = &view.Commands[i]
			case "secret (a|b)":
				secret = &view.Commands[i]
			}
		}
		if show == nil || len(show.Params) != 3 || show.Params[2].Name != "<1-5>" || show.Params[2].Doc != "Its <number>" || show.Hidden() {
			t.Fatalf("%v: show %+v", mode, show)
		}
		if (secret != nil) != (mode == XMLExpert) {
			t.Fatalf("%v: secret listed: %v", mode, secret != nil)
		}
		if secret != nil && (!secret.Hidden() || secret.Flags() != "^") {
			t.Fatalf("secret %+v", secret)
		}
		var md bytes.Buffer
		if err := d.WriteMarkdown(&md, "T", "P"); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"# T\n\nP\n", "### `show thing <1-5>`\n\n| Token | Help |\n|---|---|\n| `show` | Show running system information |\n| `thing` | A thing |\n| `<1-5>` | Its <number> |\n"} {
			if !strings.Contains(md.String(), want) {
				t.Errorf("%v: markdown lacks %q:\n%s", mode, want, md.String())
			}
		}
		if mode == XMLExpert && !strings.Contains(md.String(), "### `secret (a|b)`\n\n- global attribute (`^`): This command is hidden (check expert mode)\n\n| Token | Help |\n|---|---|\n| `secret` | Secret |\n| `a` | A |\n| `b` | B |\n") {
			t.Errorf("hidden command in markdown:\n%s", md.String())
		}
	}
}
