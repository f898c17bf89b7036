// Package web is the browser surface: the Web Surface Protocol 1 server
// (spec web-surface-protocol-1.md) that shows the agents on a virtual pad in
// a browser and takes taps from it. It implements surface.Surface (plus
// ShowRenderer, ExperienceReporter and Poller), so the daemon renders to it
// like to a Launchpad; `lets pad daemon --web` and `lets serve` compose it
// with the MIDI surface as surface.NewComposite(web, midi) (web first, wire
// spec §10).
//
// # Using it
//
//	srv, err := web.New(web.Options{App: app, Port: web.DefaultPort, LAN: lan, Log: log})
//	err = srv.Open(ctx)         // binds the listeners; idempotent (the daemon calls it again)
//	srv.WriteStartup(os.Stdout) // "Local admin: http://127.0.0.1:8765/#admin=<token>" (+ LAN lines)
//	opts.Surface = srv          // or surface.NewComposite(srv, midiSurface)
//
// App is the browser app as an fs.FS (frontend.PadApp()); it is served as
// static files from the root ("/" is index.html). /config.json is always
// generated as {"mode":"live","protocol":1}; an app file of that name is
// never served. /ws is the WebSocket endpoint.
//
// # Listeners and who is an administrator
//
// The loopback listener is always 127.0.0.1:Port. With Options.LAN a second
// listener binds the one private IPv4 address of LAN.Bind (never 0.0.0.0)
// on the same port, and pairing is enabled. A connection whose TCP peer is
// a loopback address is the local administrator once it presents the admin
// token; every other peer is a remote device that must pair. The admin
// token is 43 random characters made at every start (never stored); it
// reaches the local user only through AdminURL, which carries it in the
// fragment: http://127.0.0.1:PORT/#admin=TOKEN (printed in the terminal,
// §2.6). The desktop browser never gets that URL, because a command line
// is readable by every local user: AdminOpenURL makes a one-time link,
// http://127.0.0.1:PORT/admin/open/<43 random characters>, that a loopback
// peer can use once within 60 s; it answers 303 to /#admin=TOKEN, and
// every later visit gets a page that says the link was used. The code
// itself shows in the opener's command line for a moment, so on Linux the
// link is honoured only when the browser's socket belongs to the user
// running Lets (its owner in /proc/net/tcp); other users get a page
// instead, and the link stays usable.
//
// Each listener holds at most Options.MaxListenerConnections connections
// (128; HTTP and WebSocket alike), closing any more as soon as they are
// accepted, and closes connections that send no headers within 10 s or
// sit idle between requests for 30 s, so a local program cannot take the
// process's file descriptors through this port. Options.AllowLoopbackLAN
// is for test rigs: the LAN listener may bind 127.0.0.2 and up, and only
// 127.0.0.1 is the administrator.
//
// # Flows the browser app follows (all messages are JSON objects with "protocol":1)
//
// Administrator (loopback): the app reads the token from #admin= (then
// localStorage), opens ws://127.0.0.1:PORT/ws and sends
// {"protocol":1,"type":"authenticate","credential":"<admin token>"}. The
// server answers authenticated {admin:true, session_token:null,
// lan_enabled}, then pairing (only if LAN is on and a pairing is live: pin,
// pairing_url, qr_data_uri, expires_in), then the latest surface, the
// latest experience_state and, during a Show, the latest performance_frame.
// Admin-only messages: create_pairing (→ pairing, or error lan_disabled),
// revoke_remote (→ remote_revoked; every paired device is forgotten and
// disconnected), start_experience {kind:"demo"|"show"}, stop_experience.
//
// Lets extensions for the admin page (a reference server answers them with
// error invalid_message "unknown message type", so the page can hide the
// device list then): list_devices (→ devices {devices:[{id, name,
// paired_at, connected}]}, and from then on a fresh devices message after
// every change) and revoke_device {device:"<id>"} (→ device_revoked
// {device}; that one device's token stops working and its connections
// close with 1008 "authorization revoked"; unknown id → error
// invalid_message "unknown device").
//
// Phone access from the admin page (Lets extension, desktop app): with a
// LANSwitch installed (Options.LANSwitch or SetLANSwitch) the admin page
// sends get_lan (→ lan {enabled, switchable, lan_url, problem}, and a
// fresh lan after every change) and, when the person gives their consent,
// set_lan {enabled:true}: the server resolves the LAN address with the
// switch (as --lan does), binds it on the same port without a restart,
// answers lan and then pairing, and remembers the choice through
// LANSwitch.Remember (config.json "web": {"lan"}). set_lan {enabled:false}
// closes the LAN listener, forgets every paired device and the pairing and
// closes remote browsers with 1008 "authorization revoked". Only an
// administrator whose socket belongs to the user running Lets may switch
// (admin_required otherwise); what went wrong reaches the page in lan's
// problem, in plain words. AdminOpenURLFor(AdminViewPair) makes a one-time
// link to the page's pairing view (/#admin=TOKEN&view=pair).
//
// Phone or tablet (LAN): the device opens the QR link
// http://ADVERTISED:PORT/#pair=<32-char secret> or the plain LAN URL. The
// app sends the secret, a stored session token, or nothing; "forbidden"
// means: forget stored credentials and show the PIN form; the app then
// reconnects and sends the 6 typed digits as the credential. A valid PIN or
// secret answers authenticated {admin:false, session_token:"<43 chars>"}:
// store it and use it for every reconnect. PIN and secret are one
// credential and work once; they expire after 300 s.
//
// Everyone: action {action: approve|reject|stop|retry} and select_session
// {slot: 0..7}. Errors are {"type":"error","code","error"}; before
// authentication the connection closes with 1000 after the error, after it
// only rate_limited closes it (1008). Reconnect 1.2 s after a close.
package web
