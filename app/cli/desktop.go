package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/app/notify"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/hostapi"
)

// runDesktop is plain `lets`: the same host and pad daemon as `lets serve`
// plus the tray. Without a display or a session bus it says so in one line
// and runs exactly like `lets serve`. When Lets already runs, it asks that
// one to show its home window and exits 0.
//
// On a desktop without a tray host (GNOME without the AppIndicator
// extension) the home window is the app's main window: Lets shows it, and
// a notification says where Lets is. Closing that window quits Lets, as
// closing an app's main window does, unless a tray host started meanwhile
// and took the icon: then Lets stays in the tray. (Home in the browser,
// when native windows are missing, cannot be watched: Lets then keeps
// running, and starting it again shows Home again.)
//
// The first launch (no data folder before) opens Home with a welcome.
func runDesktop(ctx context.Context, env *Env, args []string) error {
	d := &lets.Desktop{Env: env, FirstRun: lets.IsFirstRun(env.Getenv)}
	if why := lets.DesktopMissing(env.Getenv); why != "" {
		fmt.Fprintf(env.Stdout, "%s, so Lets runs headless, like `lets serve` (no tray).\n", why)
		d.Headless = true
	} else if bus := lets.SessionBusAddress(env.Getenv); !lets.TrayHostRunning(bus) {
		// The tray registers by itself when a tray host starts later.
		// start says so once this Lets holds the lock (a second `lets`
		// only hands over to the first).
		d.NoTrayHost = true
		n := notify.New(bus, "Lets", "lets")
		d.Notify = func(ctx context.Context, m notify.Message) error {
			_, err := n.Send(ctx, m)
			return err
		}
	}
	return serve(ctx, env, args, d)
}

// handOff is the desktop's Desktop.HandOff: it asks the running Lets to
// show its home window (single instance). It returns nil when that one was
// asked, so this `lets` exits 0.
func handOff(env *Env) func(ctx context.Context, paths config.Paths) error {
	return func(ctx context.Context, paths config.Paths) error {
		return handOffTo(ctx, env, paths)
	}
}

func handOffTo(ctx context.Context, env *Env, paths config.Paths) error {
	c, err := newHostClient(paths)
	if err != nil {
		return fmt.Errorf("Lets is already running, but its host.json cannot be read to reach it (%w); stop the other Lets or check %s", err, paths.Home)
	}
	_, err = c.c.ShowHome(ctx, 5*time.Second)
	err = cliHostError(err)
	switch {
	case err == nil:
		fmt.Fprintln(env.Stdout, "Lets is already running; it is showing its home window now.")
		return nil
	case refusedWith(err, hostapi.CodeNoHomeWindow):
		return openHeadlessHome(ctx, env, c)
	}
	return fmt.Errorf("Lets is already running but did not answer the request to show its home window: %w", err)
}

// openHeadlessHome shows the home page of a Lets that runs headless
// (`lets serve`): the running Lets shows a fresh home link itself, in the
// browser or in the terminal it runs in. The link never comes back to
// this process: a home link signs in as the person (issue #23).
func openHeadlessHome(ctx context.Context, env *Env, c *hostClient) error {
	ans, err := c.c.HomeLink(ctx, 5*time.Second)
	if err := cliHostError(err); err != nil {
		return fmt.Errorf("Lets is already running headless, but it could not show its home page: %w", err)
	}
	if ans.Shown == lets.HomeInBrowser {
		fmt.Fprintln(env.Stdout, "Lets is already running headless (no tray); its home page is opening in your browser.")
		return nil
	}
	fmt.Fprintln(env.Stdout, "Lets is running headless; it printed a fresh link to its home page in the terminal where it runs.")
	return nil
}
