package config

import (
	"errors"
	"fmt"
)

// Update changes config.json in place: it reads the file, lets change edit
// the settings, and writes the result back atomically (mode 0600) the way
// Save does, so the person's other settings and every key this version does
// not know stay as they were. A missing file starts from the defaults.
//
// A file Lets cannot read (broken JSON, a wrong type, a newer version) is
// never overwritten: Update returns the *ParseError or *VersionError and
// leaves the file alone, so a typo the person is fixing does not cost them
// their settings. An error from change is returned as it is, and nothing
// is written. Callers in one process serialise their updates.
func Update(path string, change func(*Config) error) error {
	if change == nil {
		return errors.New("config: Update needs a change function")
	}
	cfg, err := Load(path)
	if err != nil {
		return fmt.Errorf("%w; config.json was left unchanged", err)
	}
	if err := change(&cfg); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("the new settings for %s are not valid, so it was left unchanged: %w", path, err)
	}
	return Save(path, cfg)
}
