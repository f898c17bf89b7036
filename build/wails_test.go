package build_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// wailsProject mirrors the wails.json keys Wails v2.9.2 reads
// (internal/project.Project); decoding with DisallowUnknownFields catches
// a misspelt key, which Wails would silently ignore.
type wailsProject struct {
	Schema           string `json:"$schema"`
	Name             string `json:"name"`
	OutputFilename   string `json:"outputfilename"`
	FrontendDir      string `json:"frontend:dir"`
	FrontendInstall  string `json:"frontend:install"`
	FrontendBuild    string `json:"frontend:build"`
	WailsJSDir       string `json:"wailsjsdir"`
	BuildDir         string `json:"build:dir"`
	AssetDir         string `json:"assetdir"`
	FrontendDevWatch string `json:"frontend:dev:watcher"`
	Author           struct {
		Name  string `json:"name"`
		Email string `json:"email"`
	} `json:"author"`
	Info struct {
		CompanyName    string  `json:"companyName"`
		ProductName    string  `json:"productName"`
		ProductVersion string  `json:"productVersion"`
		Copyright      *string `json:"copyright"`
		Comments       *string `json:"comments"`
	} `json:"info"`
}

// Point: wails.json is valid for `wails build`: only keys Wails knows, the
// binary named lets, a frontend folder that exists and needs no npm step
// (our bundles are committed), the app icon where Wails looks, and a
// product version that is also a valid Debian version (make package uses it).
func TestWailsJSONIsValidForWailsBuild(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "wails.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var p wailsProject
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("wails.json: %v", err)
	}
	if p.Name == "" || p.OutputFilename != "lets" {
		t.Errorf("name %q, outputfilename %q: want a name and the binary lets", p.Name, p.OutputFilename)
	}
	if fi, err := os.Stat(filepath.Join("..", p.FrontendDir)); err != nil || !fi.IsDir() {
		t.Errorf("frontend:dir %q is not a folder: %v", p.FrontendDir, err)
	}
	if p.FrontendInstall != "" || p.FrontendBuild != "" {
		t.Errorf("frontend:install %q / frontend:build %q: the bundles are committed, so wails build must not need npm", p.FrontendInstall, p.FrontendBuild)
	}
	if _, err := os.Stat("appicon.png"); err != nil {
		t.Errorf("Wails reads build/appicon.png: %v", err)
	}
	if !regexp.MustCompile(`^[0-9][A-Za-z0-9.+~]*$`).MatchString(p.Info.ProductVersion) {
		t.Errorf("productVersion %q is not a Debian version", p.Info.ProductVersion)
	}
}
