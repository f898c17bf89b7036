package claudesetup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lets-app/lets/backend/atomicfile"
)

// PluginFiles are the files of the Claude Code plugin layout, relative to
// its folder.
func PluginFiles() []string {
	return []string{
		filepath.Join(".claude-plugin", "plugin.json"),
		".mcp.json",
		filepath.Join("hooks", "hooks.json"),
		filepath.Join("skills", "lets", "SKILL.md"),
	}
}

// Plugin returns the plugin layout's files (paths as in PluginFiles) for
// the lets program at letsPath: the manifest, the MCP server "lets"
// (`<letsPath> mcp`), the hooks of Hooks and the skill.
func Plugin(letsPath, version string, approvalTimeout time.Duration) (map[string][]byte, error) {
	manifest, err := indentJSON(map[string]any{
		"name":        "lets",
		"version":     version,
		"description": "Lets for Claude Code: open windows with a companion and a chat, listen to people, and answer permission prompts from pads, phones and windows.",
		"author":      map[string]string{"name": "Lets"},
		"license":     "Apache-2.0",
	})
	if err != nil {
		return nil, err
	}
	mcp, err := indentJSON(map[string]any{
		"mcpServers": map[string]any{
			"lets": map[string]any{"command": letsPath, "args": []string{"mcp"}},
		},
	})
	if err != nil {
		return nil, err
	}
	hooks, _, err := Merge([]byte(`{"description":"Lets: report Claude Code's state to the pads and windows, and answer permission prompts from them"}`),
		Hooks(letsPath, approvalTimeout))
	if err != nil {
		return nil, err
	}
	files := PluginFiles()
	return map[string][]byte{
		files[0]: manifest,
		files[1]: mcp,
		files[2]: hooks,
		files[3]: []byte(Skill()),
	}, nil
}

func indentJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode the plugin: %w", err)
	}
	return b.Bytes(), nil
}

// WritePlugin writes the plugin layout into dir (created when missing) and
// returns the paths it wrote. Other files in dir are left alone.
func WritePlugin(dir, letsPath, version string, approvalTimeout time.Duration) ([]string, error) {
	files, err := Plugin(letsPath, version, approvalTimeout)
	if err != nil {
		return nil, err
	}
	var wrote []string
	for _, rel := range PluginFiles() {
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return wrote, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
		}
		if err := atomicfile.Write(path, files[rel], 0o644); err != nil {
			return wrote, fmt.Errorf("write %s: %w", path, err)
		}
		wrote = append(wrote, path)
	}
	return wrote, nil
}
