package hostclient

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// maxAncestors bounds the walk up the process tree.
const maxAncestors = 32

// shells are the programs Claude Code may run a hook or server command
// through; they are skipped on the way up.
func isShell(comm string) bool {
	switch comm {
	case "sh", "bash", "dash", "zsh", "fish", "busybox", "ash", "ksh":
		return true
	}
	return false
}

// ClaudePID returns the pid of the process that started this one (self),
// skipping shells: Claude Code runs `lets mcp` directly but may run hook
// commands through `sh -c`. It reads <procRoot>/<pid>/stat (procRoot is
// normally "/proc") and returns 0 when that is not possible or the walk
// reaches init.
func ClaudePID(procRoot string, self int) int {
	pid := self
	for range maxAncestors {
		_, ppid, ok := readStat(procRoot, pid)
		if !ok || ppid <= 1 {
			return 0
		}
		comm, _, ok := readStat(procRoot, ppid)
		if !ok {
			return 0
		}
		if !isShell(comm) {
			return ppid
		}
		pid = ppid
	}
	return 0
}

// readStat reads a process's command name and parent pid from
// <procRoot>/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces
// and parentheses, so it ends at the last ')'.
func readStat(procRoot string, pid int) (comm string, ppid int, ok bool) {
	if pid <= 0 {
		return "", 0, false
	}
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return "", 0, false
	}
	return parseStat(string(b))
}

// parseStat decodes the start of a stat line.
func parseStat(s string) (comm string, ppid int, ok bool) {
	if len(s) > 4096 {
		return "", 0, false
	}
	open := strings.IndexByte(s, '(')
	closing := strings.LastIndexByte(s, ')')
	if open < 0 || closing < open {
		return "", 0, false
	}
	comm = s[open+1 : closing]
	fields := strings.Fields(s[closing+1:])
	if len(fields) < 2 {
		return "", 0, false
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil || ppid < 0 {
		return "", 0, false
	}
	return comm, ppid, true
}
