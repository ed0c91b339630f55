// Package report renders the run document (rundoc.Run) for people and other
// programs: the measurements CSV in the reference format and its reader,
// Markdown ready to paste into a forum post, and charts and HTML. It only
// reads runs; storing them is the store package's job.
package report
