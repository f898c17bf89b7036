package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/conversations"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/textsafe"
)

// runChat is `lets chat`: open a conversation in the running Lets, list
// the conversations, or delete one.
func runChat(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("chat")
	conv := fs.String("conversation", "", "continue the conversation `ID` (lets chat --list shows them); default: a new one")
	list := fs.Bool("list", false, "list the conversations, newest first: title, last used, folder, id")
	del := fs.String("delete", "", "delete the conversation `ID` (Claude Code's own session files stay)")
	asJSON := fs.Bool("json", false, "print JSON")
	folder := fs.String("folder", "", "the working folder `DIR` of a new conversation: where Claude reads and writes files (default ~/Lets)")
	if err := parseFlags(env, "chat", fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	n := 0
	for _, on := range []bool{*conv != "", *list, *del != ""} {
		if on {
			n++
		}
	}
	if n > 1 {
		return &UsageError{Msg: "choose one of --conversation, --list and --delete", flags: fs}
	}
	for _, id := range []string{*conv, *del} {
		if id != "" && !conversations.ValidID(id) {
			return &UsageError{Msg: (&conversations.BadIDError{ID: id}).Error(), flags: fs}
		}
	}
	home, err := config.ResolveHome(env.Getenv)
	if err != nil {
		return err
	}
	if *folder != "" && (*conv != "" || *list || *del != "") {
		return &UsageError{Msg: "--folder chooses where a new conversation works; a conversation you continue keeps its folder", flags: fs}
	}
	paths := config.Paths{Home: home}
	switch {
	case *list:
		return listChats(env, paths, *asJSON)
	case *del != "":
		return deleteChat(ctx, env, paths, *del, *asJSON)
	}
	c, err := newHostClient(paths)
	if errors.Is(err, config.ErrHostNotRunning) {
		return errors.New("Lets is not running. Start it first — double-click Lets, or run `lets` (or `lets serve` without a desktop) — then run `lets chat` again, or pick \"Chat with Claude\" in the Lets tray menu")
	}
	if err != nil {
		return err
	}
	req := hostapi.ChatRequest{Conversation: *conv}
	if *folder != "" {
		abs, err := filepath.Abs(*folder)
		if err != nil {
			return fmt.Errorf("the folder %s: %w", *folder, err)
		}
		req.Folder = abs
	}
	a, err := c.c.Chat(ctx, req, 90*time.Second)
	if err != nil {
		ae := refusal(err)
		switch {
		case refusedWith(err, hostapi.CodeUnknownConversation):
			return fmt.Errorf("there is no conversation %s; `lets chat --list` shows the ones you can continue", *conv)
		case ae != nil && ae.Status == http.StatusNotFound:
			return fmt.Errorf("the running Lets is older and has no Chat with Claude; quit it and start this version (`lets`)")
		}
		return cliHostError(err)
	}
	if *asJSON {
		out := map[string]string{"window": a.Window, "conversation": *conv, "shown": a.Shown}
		if a.Home != "" {
			out["home"] = a.Home
		}
		return printJSON(env.Stdout, out)
	}
	if *conv == "" {
		fmt.Fprintf(env.Stdout, "A new conversation with Claude is in window %s.\n", a.Window)
	} else {
		fmt.Fprintf(env.Stdout, "Conversation %s is in window %s.\n", *conv, a.Window)
	}
	fmt.Fprintln(env.Stdout, shownWords(a.Shown, a.Home))
	return nil
}

// listChats reads the conversations from the data folder (Lets need not
// run).
func listChats(env *Env, paths config.Paths, asJSON bool) error {
	store := conversations.New(conversations.Options{Root: lets.ChatStoreDir(paths)})
	list, err := store.List()
	if err != nil {
		return err
	}
	if asJSON {
		out := make([]hostapi.ChatInfo, 0, len(list))
		for _, i := range list {
			out = append(out, hostapi.ChatInfo{ID: i.ID, Title: i.Title, Updated: i.Updated.UTC(), Dir: i.Dir, Turns: i.Turns})
		}
		return printJSON(env.Stdout, map[string]any{"conversations": out})
	}
	if len(list) == 0 {
		fmt.Fprintln(env.Stdout, "No conversations with Claude yet. Start one with `lets chat`, or pick \"Chat with Claude\" in the Lets tray menu.")
		return nil
	}
	for _, i := range list {
		msgs := fmt.Sprintf("%d messages", i.Turns)
		if i.Turns == 1 {
			msgs = "1 message"
		}
		fmt.Fprintf(env.Stdout, "%s\n  last used %s · folder %s · %s\n  id %s\n", textsafe.OneLine(i.Title, 70), i.Updated.Local().Format("2 Jan 2006 15:04"), i.Dir, msgs, i.ID)
	}
	fmt.Fprintln(env.Stdout, "Continue one with `lets chat --conversation <id>`.")
	return nil
}

// deleteChat deletes through the running Lets (which closes the window
// and stops Claude first), or in the data folder when Lets is not running.
func deleteChat(ctx context.Context, env *Env, paths config.Paths, id string, asJSON bool) error {
	c, err := newHostClient(paths)
	switch {
	case errors.Is(err, config.ErrHostNotRunning):
		err = conversations.New(conversations.Options{Root: lets.ChatStoreDir(paths)}).Delete(id)
	case err != nil:
		return err
	default:
		err = cliHostError(c.c.DeleteChat(ctx, id, 30*time.Second))
		if refusedWith(err, hostapi.CodeUnknownConversation) {
			err = conversations.ErrNotFound
		}
	}
	if errors.Is(err, conversations.ErrNotFound) {
		return fmt.Errorf("there is no conversation %s (maybe it was deleted already); `lets chat --list` shows them", id)
	}
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(env.Stdout, map[string]string{"deleted": id})
	}
	fmt.Fprintf(env.Stdout, "Deleted conversation %s.\n", id)
	return nil
}

// shownWords says where a window Lets opened is, for the person at the
// terminal (the host's "shown" and "home").
func shownWords(shown, home string) string {
	if shown == host.ShownWaiting {
		if home == "" {
			home = "Lets' home page"
		}
		return "It is waiting for you on Lets' home page: " + home
	}
	return "Lets opened it on your screen (in its own window or your browser)."
}
