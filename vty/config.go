package vty

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ConfigError reports the line of a config file that could not be applied.
type ConfigError struct {
	File string
	Line int
	Text string // the line as read
	Msg  string // the parser's message, or the failing command's output
	// Command is true when the line parsed but its command failed
	// (CMD_WARNING); Msg is then what the command printed.
	Command bool
}

func (e *ConfigError) Error() string {
	msg := e.Msg
	if msg == "" {
		msg = "command failed"
	}
	return fmt.Sprintf("%s:%d: %s: %q", e.File, e.Line, msg, e.Text)
}

// OsmoMessage is what libosmocore prints to stderr for this error before
// the program exits (vty_read_config_filep): the parser's message first,
// or a failed command's own output last.
func (e *ConfigError) OsmoMessage() string {
	if e.Command {
		return fmt.Sprintf("Error occurred during reading the below line:\n%s\n%s\n", e.Text, e.Msg)
	}
	return fmt.Sprintf("%s\nError occurred during reading the below line:\n%s\n", e.Msg, e.Text)
}

const invalidIndentMsg = "Inconsistent indentation -- leading whitespace must match adjacent lines, and " +
	"indentation must reflect child node levels. A mix of tabs and spaces is allowed, but their sequence must " +
	"not change within a child block."

// indentCmp compares indentation strings a and b: -1 a shorter, 0 equal,
// 1 longer, 2 inconsistent (libosmocore indent_cmp).
func indentCmp(a, b *string) int {
	var as, bs string
	if a != nil {
		as = *a
	}
	if b != nil {
		bs = *b
	}
	if len(as) > len(bs) {
		if len(bs) > 0 && !strings.HasPrefix(as, bs) {
			return 2
		}
		return 1
	}
	if len(as) > 0 && !strings.HasPrefix(bs, as) {
		return 2
	}
	if len(as) < len(bs) {
		return -1
	}
	return 0
}

// ReadConfig applies a config file read from r (name is used in errors),
// starting at the CONFIG node, with Osmocom's indentation rules: a child
// node's lines are indented deeper than the line that entered it, and
// less indentation leaves the node (libosmocore config_from_file). Keywords
// must be complete (no abbreviation), as in libosmocore. The first failing
// line stops reading and is returned as *ConfigError. Handlers run in the
// caller's goroutine.
func (v *VTY) ReadConfig(r io.Reader, name string) error {
	st := &state{node: ConfigNode}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	lineNo := 0
	var out bytes.Buffer
	fail := func(line, msg string) error {
		return &ConfigError{File: name, Line: lineNo, Text: line, Msg: msg}
	}
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), "\r")
		i := 0
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i < len(line) && isSpace(line[i]) {
			return fail(line, invalidIndentMsg)
		}
		words := splitWords(line)
		if words == nil {
			continue
		}
		indent := line[:i]
		var cmp int
		if st.indent == nil {
			if l := len(st.stack); l > 0 {
				cmp = indentCmp(&indent, st.stack[l-1].indent)
			} else {
				cmp = 1
			}
			if cmp == 2 {
				return fail(line, invalidIndentMsg)
			}
			if cmp <= 0 {
				v.goParent(&Context{v: v, st: st, out: &out, file: true})
			} else {
				s := indent
				st.indent = &s
				cmp = 0
			}
		} else {
			cmp = indentCmp(&indent, st.indent)
			if cmp == 2 {
				return fail(line, invalidIndentMsg)
			}
		}
		for cmp < 0 {
			v.goParent(&Context{v: v, st: st, out: &out, file: true})
			cmp = indentCmp(&indent, st.indent)
			if cmp == 2 {
				return fail(line, invalidIndentMsg)
			}
		}
		if cmp > 0 {
			return fail(line, invalidIndentMsg)
		}
		cmd, argv, ret := resolve(v.Node(st.node).Cmds, words, true)
		switch ret {
		case resAmbiguous:
			return fail(line, "Ambiguous command.")
		case resNoMatch:
			return fail(line, "There is no such command.")
		case resIncomplete:
			return fail(line, "Command incomplete.")
		case resArgcMax:
			return fail(line, "Too many arguments.")
		}
		out.Reset()
		if v.execute(st, cmd, argv, &out, true) != resSuccess {
			e := fail(line, strings.TrimSpace(out.String())).(*ConfigError)
			e.Command = true
			return e
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	for len(st.stack) > 0 {
		v.goParent(&Context{v: v, st: st, out: &out, file: true})
	}
	return nil
}

// ReadConfigFile reads path with ReadConfig and remembers it as the file
// `write file` writes.
func (v *VTY) ReadConfigFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	err = v.ReadConfig(f, path)
	v.Info.ConfigFile = path
	return err
}

// ConfigFileText is what `write file` stores: libosmocore's header and the
// running configuration.
func (v *VTY) ConfigFileText() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "!\n! %s (%s) configuration saved from vty\n!!\n", v.Info.Name, v.Info.Version)
	b.WriteString(v.RunningConfig())
	return b.Bytes()
}

// BackupSuffix is appended to the previous config file by WriteConfigFile
// (libosmocore CONF_BACKUP_EXT).
const BackupSuffix = ".sav"

// WriteConfigFile stores the running configuration in path atomically: it
// writes a temporary file in the same directory, fsyncs it, keeps the
// previous file as path+".sav" (hard link), renames the temporary file over
// path and fsyncs the directory. A crash at any point leaves either the old
// or the new complete file at path.
func (v *VTY) WriteConfigFile(path string) error {
	return writeFileAtomic(path, v.ConfigFileText())
}

func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmpName)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if _, err := os.Stat(path); err == nil {
		bak := path + BackupSuffix
		if err := os.Remove(bak); err != nil && !os.IsNotExist(err) {
			return err
		}
		if err := os.Link(path, bak); err != nil {
			return err
		}
	}
	if err := os.Rename(tmpName, path); err != nil {
		return err
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
