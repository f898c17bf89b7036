// Package conversations keeps the "Chat with Claude" conversations Lets
// drives: one JSON file per conversation under ~/.lets/conversations/,
// written atomically with mode 0600. Each file holds Lets' own transcript
// (claude --resume continues a session but does not replay its history)
// and the Claude Code session id and working folder needed to resume it.
// Claude Code's own session files belong to Claude Code and are never
// touched here.
package conversations

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"

	"github.com/lets-app/lets/backend/atomicfile"
	"github.com/lets-app/lets/backend/changes"
	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/textsafe"
	"github.com/lets-app/lets/backend/token"
)

// Roles of a turn.
const (
	RoleHuman  = "human"
	RoleClaude = "claude"
)

// Limits of what a file may hold; a file beyond them is refused (read) or
// trimmed (write: the oldest turns go first).
const (
	MaxFileBytes    = 8 << 20
	MaxTurns        = 2000
	MaxTurnText     = 100_000
	MaxAttachments  = 10
	MaxTitle        = 120
	maxPath         = 4096
	maxMode         = 40
	idPrefix        = "conv_"
	fileSuffix      = ".json"
	fileMode        = 0o600
	dirMode         = 0o700
	defaultTitle    = "New conversation"
	titleFromPrompt = 60
)

// Attachment is an image the person attached: a stored upload path.
type Attachment struct {
	Path string `json:"path"`
	Mime string `json:"mime,omitempty"`
}

// Turn is one finished message of the conversation.
type Turn struct {
	Role        string       `json:"role"`
	Text        string       `json:"text"`
	Attachments []Attachment `json:"attachments,omitempty"`
	At          time.Time    `json:"at"`
}

// Conversation is one file.
type Conversation struct {
	ID              string    `json:"id"`
	ClaudeSessionID string    `json:"claude_session_id"`
	Title           string    `json:"title"`
	Dir             string    `json:"dir"`
	Created         time.Time `json:"created"`
	Updated         time.Time `json:"updated"`
	// PermissionMode is Claude Code's --permission-mode for this
	// conversation ("" = ask, the default).
	PermissionMode string `json:"permission_mode,omitempty"`
	Transcript     []Turn `json:"transcript"`
}

// Info is what a list shows of a conversation.
type Info struct {
	ID      string    `json:"id"`
	Title   string    `json:"title"`
	Dir     string    `json:"dir"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	Turns   int       `json:"turns"`
}

// Info returns the list entry of c.
func (c *Conversation) Info() Info {
	return Info{ID: c.ID, Title: c.Title, Dir: c.Dir, Created: c.Created, Updated: c.Updated, Turns: len(c.Transcript)}
}

// ErrNotFound: no conversation has that id.
var ErrNotFound = errors.New("no such conversation")

// BadIDError: an id that cannot name a conversation file (it would leave
// the folder, or is not one of ours).
type BadIDError struct{ ID string }

func (e *BadIDError) Error() string {
	return fmt.Sprintf("%q is not a conversation id: ids look like conv_ followed by 26 letters and digits (see List)", textsafe.ClipBytes(e.ID, 40))
}

// DecodeError: a conversation file that cannot be read as one.
type DecodeError struct {
	Path string
	Err  error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("conversation file %s is damaged (%v): move it away or delete it", e.Path, e.Err)
}
func (e *DecodeError) Unwrap() error { return e.Err }

// Options configure a Store.
type Options struct {
	// Root is the folder of the files, e.g. ~/.lets/conversations.
	Root string
	// DefaultDir is the working folder of a new conversation when none is
	// given, e.g. ~/Lets.
	DefaultDir string
	// Clock dates conversations and turns; nil means the wall clock.
	Clock  clock.Clock
	Logger *slog.Logger
}

// Store reads and writes conversation files. It is safe for concurrent
// use within one process.
type Store struct {
	opts Options
	mu   sync.Mutex
	// changes tells in-process listeners (the tray) that the list changed.
	changes changes.Feed
}

// Subscribe returns a channel that receives a signal whenever a
// conversation was created, changed or deleted (coalesced); it is closed
// when ctx ends.
func (s *Store) Subscribe(ctx context.Context) <-chan struct{} {
	return s.changes.Subscribe(ctx)
}

// New returns a store; the folder is created on the first write.
func New(opts Options) *Store {
	opts.Clock = clock.Or(opts.Clock)
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Store{opts: opts}
}

// ValidID says whether id can name a conversation file: conv_ and a ULID.
func ValidID(id string) bool {
	if !strings.HasPrefix(id, idPrefix) || len(id) != len(idPrefix)+26 {
		return false
	}
	for _, r := range id[len(idPrefix):] {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z') {
			return false
		}
	}
	return true
}

func (s *Store) path(id string) (string, error) {
	if !ValidID(id) {
		return "", &BadIDError{ID: id}
	}
	return filepath.Join(s.opts.Root, id+fileSuffix), nil
}

// validUUID: 8-4-4-4-12 lowercase or uppercase hex.
func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// CreateOptions are the choices of a new conversation; all optional.
type CreateOptions struct {
	Title          string
	Dir            string
	PermissionMode string
}

// Create writes a new, empty conversation with a fresh Claude Code session
// id and returns it. Its working folder is not created here (EnsureDir).
func (s *Store) Create(o CreateOptions) (*Conversation, error) {
	now := s.opts.Clock.Now().UTC()
	dir := o.Dir
	if dir == "" {
		dir = s.opts.DefaultDir
	}
	if dir != "" && !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("the working folder %q must be an absolute path", dir)
	}
	title := textsafe.OneLine(o.Title, MaxTitle)
	if title == "" {
		title = defaultTitle
	}
	c := &Conversation{
		ID:              idPrefix + strings.ToLower(ulid.MustNew(ulid.Timestamp(now), rand.Reader).String()),
		ClaudeSessionID: token.NewUUID(),
		Title:           title,
		Dir:             filepath.Clean(dir),
		Created:         now,
		Updated:         now,
		PermissionMode:  textsafe.OneLine(o.PermissionMode, maxMode),
		Transcript:      []Turn{},
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.write(c); err != nil {
		return nil, err
	}
	s.changes.Notify()
	return c, nil
}

// Get reads one conversation. Errors: *BadIDError, ErrNotFound,
// *DecodeError, or the file system's error.
func (s *Store) Get(id string) (*Conversation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read(id)
}

func (s *Store) read(id string) (*Conversation, error) {
	p, err := s.path(id)
	if err != nil {
		return nil, err
	}
	b, err := readSmall(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("conversation %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read conversation %s: %w", id, err)
	}
	c, err := Decode(b)
	if err != nil {
		return nil, &DecodeError{Path: p, Err: err}
	}
	if c.ID != id {
		return nil, &DecodeError{Path: p, Err: fmt.Errorf("it names itself %q", textsafe.ClipBytes(c.ID, 40))}
	}
	return c, nil
}

// readSmall reads a regular file (no symlink) of at most MaxFileBytes.
func readSmall(p string) ([]byte, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	if fi.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", p, MaxFileBytes)
	}
	return os.ReadFile(p)
}

// Update reads a conversation, lets change edit it and writes it back with
// Updated set to now. change must not alter the id.
func (s *Store) Update(id string, change func(*Conversation) error) (*Conversation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.read(id)
	if err != nil {
		return nil, err
	}
	if err := change(c); err != nil {
		return nil, err
	}
	if c.ID != id {
		return nil, fmt.Errorf("update conversation %s: the id cannot change", id)
	}
	c.Updated = s.opts.Clock.Now().UTC()
	if err := s.write(c); err != nil {
		return nil, err
	}
	s.changes.Notify()
	return c, nil
}

// Append adds finished turns to the transcript. The first human turn of a
// conversation that still has the default title names it.
func (s *Store) Append(id string, turns ...Turn) (*Conversation, error) {
	now := s.opts.Clock.Now().UTC()
	return s.Update(id, func(c *Conversation) error {
		for _, t := range turns {
			if t.Role != RoleHuman && t.Role != RoleClaude {
				return fmt.Errorf("a turn's role must be %q or %q, got %q", RoleHuman, RoleClaude, textsafe.ClipBytes(t.Role, 20))
			}
			if t.At.IsZero() {
				t.At = now
			}
			if c.Title == defaultTitle && t.Role == RoleHuman && strings.TrimSpace(t.Text) != "" {
				c.Title = textsafe.OneLine(t.Text, titleFromPrompt)
			}
			c.Transcript = append(c.Transcript, t)
		}
		return nil
	})
}

// write trims and writes c (s.mu held).
func (s *Store) write(c *Conversation) error {
	if over := len(c.Transcript) - MaxTurns; over > 0 {
		c.Transcript = append([]Turn(nil), c.Transcript[over:]...)
	}
	for i := range c.Transcript {
		c.Transcript[i].Text = textsafe.CutBytes(c.Transcript[i].Text, MaxTurnText)
		if len(c.Transcript[i].Attachments) > MaxAttachments {
			c.Transcript[i].Attachments = c.Transcript[i].Attachments[:MaxAttachments]
		}
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("encode conversation %s: %w", c.ID, err)
	}
	if err := os.MkdirAll(s.opts.Root, dirMode); err != nil {
		return fmt.Errorf("make the conversations folder %s: %w", s.opts.Root, err)
	}
	p, err := s.path(c.ID)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(p, append(b, '\n'), fileMode); err != nil {
		return fmt.Errorf("save conversation %s: %w", c.ID, err)
	}
	return nil
}

// List returns every readable conversation, newest (last updated) first;
// unreadable files are skipped with a warning.
func (s *Store) List() ([]Info, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ents, err := os.ReadDir(s.opts.Root)
	if errors.Is(err, fs.ErrNotExist) {
		return []Info{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list conversations in %s: %w", s.opts.Root, err)
	}
	out := []Info{}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), fileSuffix)
		if !ok || !ValidID(id) {
			continue
		}
		c, err := s.read(id)
		if err != nil {
			s.opts.Logger.Warn("conversations: skipping an unreadable conversation", "id", id, "err", err)
			continue
		}
		out = append(out, c.Info())
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.After(out[j].Updated)
		}
		return out[i].ID > out[j].ID
	})
	return out, nil
}

// Delete removes a conversation's file. Claude Code's session files are
// Claude Code's and stay. Errors: *BadIDError, ErrNotFound.
func (s *Store) Delete(id string) error {
	p, err := s.path(id)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.Remove(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("conversation %s: %w", id, ErrNotFound)
		}
		return fmt.Errorf("delete conversation %s: %w", id, err)
	}
	s.changes.Notify()
	return nil
}

// EnsureDir creates the conversation's working folder (0700) when it does
// not exist yet, and returns it.
func EnsureDir(c *Conversation) (string, error) {
	if c.Dir == "" || !filepath.IsAbs(c.Dir) {
		return "", fmt.Errorf("conversation %s has no absolute working folder (%q): choose one", c.ID, c.Dir)
	}
	if err := os.MkdirAll(c.Dir, dirMode); err != nil {
		return "", fmt.Errorf("make the working folder %s: %w", c.Dir, err)
	}
	return c.Dir, nil
}

// Decode reads one conversation file strictly: unknown roles, a bad
// session id, a relative folder or oversized parts are refused.
func Decode(b []byte) (*Conversation, error) {
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxFileBytes)
	}
	var c Conversation
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("not a conversation object: %w", err)
	}
	switch {
	case !ValidID(c.ID):
		return nil, fmt.Errorf("bad id %q", textsafe.ClipBytes(c.ID, 40))
	case !validUUID(c.ClaudeSessionID):
		return nil, fmt.Errorf("bad claude_session_id %q: want a UUID", textsafe.ClipBytes(c.ClaudeSessionID, 40))
	case c.Dir != "" && (!filepath.IsAbs(c.Dir) || len(c.Dir) > maxPath):
		return nil, fmt.Errorf("the working folder must be an absolute path")
	case utf8.RuneCountInString(c.Title) > MaxTitle || !utf8.ValidString(c.Title):
		return nil, fmt.Errorf("the title is longer than %d characters", MaxTitle)
	case len(c.PermissionMode) > maxMode:
		return nil, fmt.Errorf("the permission mode is too long")
	case len(c.Transcript) > MaxTurns:
		return nil, fmt.Errorf("more than %d turns", MaxTurns)
	}
	for i, t := range c.Transcript {
		if t.Role != RoleHuman && t.Role != RoleClaude {
			return nil, fmt.Errorf("turn %d: role %q is neither %q nor %q", i, textsafe.ClipBytes(t.Role, 20), RoleHuman, RoleClaude)
		}
		if len(t.Text) > MaxTurnText {
			return nil, fmt.Errorf("turn %d: text longer than %d bytes", i, MaxTurnText)
		}
		if len(t.Attachments) > MaxAttachments {
			return nil, fmt.Errorf("turn %d: more than %d attachments", i, MaxAttachments)
		}
		for _, a := range t.Attachments {
			if a.Path == "" || len(a.Path) > maxPath {
				return nil, fmt.Errorf("turn %d: an attachment needs a path", i)
			}
		}
	}
	if c.Transcript == nil {
		c.Transcript = []Turn{}
	}
	return &c, nil
}
