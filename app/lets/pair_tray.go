package lets

import (
	"context"
	"errors"
	"fmt"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/surface/web"
)

// The tray's "Pair a phone…" and "Virtual pad" (issue #21). Both open the
// browser pad's page on this computer through a one-time admin link, in
// different views: "Pair a phone…" shows only what pairing needs — the
// consent to let phones on this network connect, then the QR code and PIN,
// and the way to switch phones off again — and "Virtual pad" shows the pad.
// Either click lets the page switch phone access live (no restart); the
// choice is kept in config.json as "web": {"lan"}, which the next start
// reads the way --lan works.

// errBrowserPadOff is what both items say when the browser pad does not
// run ("web": {"enabled": false}).
var errBrowserPadOff = errors.New(`the browser pad is off; set "web": {"enabled": true} in config.json and restart Lets`)

// pairPhone runs "Pair a phone…": a fresh code when phones may already
// connect, then the pad page's pairing view.
func (s *traySource) pairPhone() error {
	srv := s.parts.web
	if srv == nil {
		return errBrowserPadOff
	}
	s.allowLANSwitch()
	if srv.LANState().Enabled {
		// A code the person opens the page for is a new one, with its full
		// five minutes.
		if _, err := srv.CreatePairing(); err != nil {
			s.parts.log.Warn("could not make a new pairing code; the page offers to make one", "err", err)
		}
	}
	return s.openPadView(web.AdminViewPair)
}

// openVirtualPad runs "Virtual pad": the pad itself, with its admin panel.
func (s *traySource) openVirtualPad() error {
	if s.parts.web == nil {
		return errBrowserPadOff
	}
	s.allowLANSwitch()
	return s.openPadView(web.AdminViewPad)
}

// openPadView hands the desktop browser a one-time link to a view of the
// pad page (never the admin token: a command line is readable by every
// local user).
func (s *traySource) openPadView(view web.AdminView) error {
	link, err := s.parts.web.AdminOpenURLFor(view)
	if err != nil {
		return fmt.Errorf("make a link to the pad page: %w", err)
	}
	return s.parts.env.OpenInBrowser(link)
}

// allowLANSwitch lets the pad page switch phone access (idempotent).
func (s *traySource) allowLANSwitch() {
	sw, err := padLANSwitch(s.parts.env)
	if err != nil {
		s.parts.log.Warn("the pad page cannot switch phone access: Lets' data folder is unknown", "err", err)
		return
	}
	s.parts.web.SetLANSwitch(sw)
}

// padLANSwitch is the pad page's phone-access switch for this Lets: the
// LAN address comes from config.json's "web" bind_host and advertise_host
// exactly as --lan finds it (web.ResolveLAN: the configured host, or the
// private address the system routes through), and the choice is written
// to "web": {"lan"} with the rest of the file kept.
func padLANSwitch(env *Env) (*web.LANSwitch, error) {
	home, err := config.ResolveHome(env.Getenv)
	if err != nil {
		return nil, err
	}
	path := config.Paths{Home: home}.ConfigFile()
	return &web.LANSwitch{
		Resolve: func(ctx context.Context) (*web.LAN, error) {
			// A config.json that does not load gives the defaults: no
			// bind_host, so the address is discovered (the save after it
			// then reports the problem to the page).
			cfg, _ := config.Load(path)
			return web.ResolveLAN(ctx, cfg.Web.BindHost, cfg.Web.AdvertiseHost, env.LAN)
		},
		Remember: func(on bool) error {
			return config.Update(path, func(c *config.Config) error {
				c.Web.LAN = on
				return nil
			})
		},
	}, nil
}
