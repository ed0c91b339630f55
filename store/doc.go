// Package store keeps the history of benchmark runs in an embedded SQLite
// database (modernc.org/sqlite, no cgo): one file in the user's data folder,
// opened in WAL mode so the app can read while a run writes, migrated in
// place by ordered SQL steps, and written one finished cell per transaction
// so a crash loses at most the cell in flight.
//
// The store persists the run document of engine/bench and nothing else; it
// renders nothing (engine/report does) and measures nothing.
package store
