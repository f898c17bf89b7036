package agent

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// VmRSS is the resident memory of a process in KiB, from
// /proc/<pid>/status (Linux).
func VmRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("agent: read the memory use of process %d: %w", pid, err)
	}
	defer f.Close()
	return parseVmRSS(f)
}

func parseVmRSS(f *os.File) (int64, error) {
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "VmRSS:") {
			continue
		}
		fields := strings.Fields(strings.TrimPrefix(line, "VmRSS:"))
		if len(fields) < 1 {
			break
		}
		return strconv.ParseInt(fields[0], 10, 64)
	}
	return 0, fmt.Errorf("agent: no VmRSS line in %s", f.Name())
}
