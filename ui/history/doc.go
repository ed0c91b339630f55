// Package history is the History view: every run in a filterable table
// (date, GPU, model, engine, key figures), with rename, tag, annotate and
// delete (after confirmation), import of JSON and reference-CSV files, and
// a selection of up to six runs to show, compare or export.
package history
