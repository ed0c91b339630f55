package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Rename sets the run's name (id: UUID or unique prefix).
func (s *DB) Rename(ctx context.Context, id, name string) error {
	name = strings.TrimSpace(name)
	// The limits an import applies, so an edited run still exports and
	// imports again.
	if err := rundoc.CheckLabels(name, nil, ""); err != nil {
		return fmt.Errorf("the run's %w", err)
	}
	return s.update(ctx, id, `UPDATE runs SET name = ? WHERE id = ?`, name)
}

// SetTags replaces the run's tags. Blank tags are dropped and repeats
// removed, keeping the first occurrence's order.
func (s *DB) SetTags(ctx context.Context, id string, tags []string) error {
	var clean []string
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t == "" || slices.Contains(clean, t) {
			continue
		}
		clean = append(clean, t)
	}
	if err := rundoc.CheckLabels("", clean, ""); err != nil {
		return fmt.Errorf("the run's %w", err)
	}
	col, err := jsonCol(clean, len(clean) == 0)
	if err != nil {
		return err
	}
	return s.update(ctx, id, `UPDATE runs SET tags = ? WHERE id = ?`, col)
}

// SetNotes replaces the run's free-text notes.
func (s *DB) SetNotes(ctx context.Context, id, notes string) error {
	if err := rundoc.CheckLabels("", nil, notes); err != nil {
		return fmt.Errorf("the run's %w", err)
	}
	return s.update(ctx, id, `UPDATE runs SET notes = ? WHERE id = ?`, notes)
}

// Delete removes the run with its cells and samples.
func (s *DB) Delete(ctx context.Context, id string) error {
	return s.update(ctx, id, `DELETE FROM runs WHERE id = ?`)
}

// update resolves id inside a write transaction and runs query with the
// given arguments followed by the run's row id.
func (s *DB) update(ctx context.Context, id, query string, args ...any) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		rowID, _, err := resolve(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, query, append(args, rowID)...); err != nil {
			return err
		}
		return refreshSummary(ctx, tx, rowID)
	})
}

// Resolve returns the full UUID of a run given its UUID or a unique prefix.
func (s *DB) Resolve(ctx context.Context, id string) (string, error) {
	_, uuid, err := resolve(ctx, s.sql, id)
	return uuid, explain(err, s.path)
}
