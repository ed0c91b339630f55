package quality

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Archive is a data set published inside a zip file: Fetch downloads
// URL, checks it against SHA256, reads Member (decrypting it with Password,
// a public one the publisher documents, when the member is encrypted) and
// turns it into the data set's file with Build; the built file is then
// checked against its Source's SHA256.
type Archive struct {
	URL, SHA256, Member, Password string
	Build                         func(member []byte) ([]byte, error)
}

// gpqaArchive is idavidrein/gpqa's dataset.zip as llm-inference-bench
// 0.4.29 pins it (llm_decode_bench.py, BENCH_DATASETS["gpqa_diamond"]):
// the URL (the main branch: the sha256 is the pin), the archive's sha256,
// the member, and the password the GPQA README documents so that the
// plaintext is not crawled; the built file is cached locally only, never
// stored in RigBench's repository.
var gpqaArchive = &Archive{
	URL:      "https://github.com/idavidrein/gpqa/raw/main/dataset.zip",
	SHA256:   "461ae7329f15a3e35f8184d2dac24b990f34fdf12f366ca4062d8e6638cd08dc",
	Member:   "dataset/gpqa_diamond.csv",
	Password: "deserted-untie-orchid",
	Build:    BuildGPQADiamond,
}

// readZipMember returns member's bytes from a zip archive, decrypting
// traditional PKWARE ("ZipCrypto") encryption with password, the only
// kind Python's zipfile, and so the seed tool, reads. Its CRC-32 is
// checked.
func readZipMember(archive []byte, member, password string) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		return nil, fmt.Errorf("the archive is not a zip file (%v)", err)
	}
	var f *zip.File
	for _, zf := range zr.File {
		if zf.Name == member {
			f = zf
		}
	}
	if f == nil {
		return nil, fmt.Errorf("the archive holds no %s", member)
	}
	raw, err := f.OpenRaw()
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(raw)
	if err != nil {
		return nil, err
	}
	if f.Flags&1 != 0 {
		if data, err = zipDecrypt(data, password, f); err != nil {
			return nil, err
		}
	}
	var out []byte
	switch f.Method {
	case zip.Store:
		out = data
	case zip.Deflate:
		if out, err = io.ReadAll(flate.NewReader(bytes.NewReader(data))); err != nil {
			return nil, fmt.Errorf("%s does not inflate (%v)", member, err)
		}
	default:
		return nil, fmt.Errorf("%s is compressed with method %d, which RigBench does not read", member, f.Method)
	}
	if crc32.ChecksumIEEE(out) != f.CRC32 {
		return nil, fmt.Errorf("%s fails its CRC-32 check", member)
	}
	return out, nil
}

// zipDecrypt undoes ZipCrypto (PKWARE's APPNOTE, 6.1): three 32-bit keys
// start at 0x12345678, 0x23456789, 0x34567890 and are stirred with each
// password byte, then with each plain byte; each cipher byte is the plain
// byte XOR a keystream byte from the third key. The first 12 bytes are a
// header whose last byte repeats the CRC's top byte (or, with a data
// descriptor, the modification time's), a check that the password is
// right.
func zipDecrypt(data []byte, password string, f *zip.File) ([]byte, error) {
	k := [3]uint32{0x12345678, 0x23456789, 0x34567890}
	update := func(c byte) {
		k[0] = crc32.IEEETable[byte(k[0])^c] ^ (k[0] >> 8)
		k[1] = (k[1]+(k[0]&0xff))*134775813 + 1
		k[2] = crc32.IEEETable[byte(k[2])^byte(k[1]>>24)] ^ (k[2] >> 8)
	}
	for i := 0; i < len(password); i++ {
		update(password[i])
	}
	if len(data) < 12 {
		return nil, errors.New("the encrypted member is shorter than its header")
	}
	out := make([]byte, len(data))
	for i, c := range data {
		t := uint16(k[2] | 2)
		p := c ^ byte((uint32(t)*uint32(t^1))>>8)
		update(p)
		out[i] = p
	}
	check := byte(f.CRC32 >> 24)
	if f.Flags&0x8 != 0 {
		check = byte(f.ModifiedTime >> 8)
	}
	if out[11] != check {
		return nil, errors.New("the archive's password is not the one pinned")
	}
	return out[12:], nil
}

// pyStrip is Python's str.strip(): whitespace as str.isspace has it, which
// adds the separators U+001C–U+001F to Go's unicode.IsSpace.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) })
}

// pyCSV reads CSV the way Python's csv.reader does with its default
// (excel) dialect: fields split at commas, a field that starts with a
// double quote runs to its closing quote with "" for a quote and keeps line
// breaks (\r\n too) verbatim, a quote inside an unquoted field is kept as
// it is, records end at \n, \r or \r\n, and an empty line is an empty
// record (csv.DictReader skips it). Go's encoding/csv drops the \r of
// quoted \r\n, which would change the questions' text.
func pyCSV(text string) [][]string {
	var rows [][]string
	var row []string
	var field strings.Builder
	quoted, inQuotes, atStart := false, false, true
	endField := func() {
		row = append(row, field.String())
		field.Reset()
		quoted, atStart = false, true
	}
	endRow := func() {
		if len(row) > 0 || !atStart || field.Len() > 0 {
			endField()
		}
		rows = append(rows, row)
		row = nil
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inQuotes:
			if c == '"' {
				if i+1 < len(text) && text[i+1] == '"' {
					field.WriteByte('"')
					i++
				} else {
					inQuotes = false
				}
			} else {
				field.WriteByte(c)
			}
		case c == '"' && atStart && !quoted:
			inQuotes, quoted, atStart = true, true, false
		case c == ',':
			endField()
		case c == '\r' || c == '\n':
			if c == '\r' && i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			endRow()
		default:
			field.WriteByte(c)
			atStart = false
		}
	}
	if len(row) > 0 || !atStart || field.Len() > 0 || quoted {
		endRow()
	}
	return rows
}

// pyJSONString writes s as Python's json.dumps(ensure_ascii=True) does:
// \" \\ \n \r \t \b \f escaped by name, every other character outside
// ' '…'~' as \uXXXX in lowercase hex (two of them, a surrogate pair,
// above U+FFFF).
func pyJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r >= ' ' && r <= '~':
				b.WriteRune(r)
			case r > 0xffff:
				r -= 0x10000
				fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			default:
				fmt.Fprintf(b, `\u%04x`, r)
			}
		}
	}
	b.WriteByte('"')
}

// BuildGPQADiamond turns the official gpqa_diamond.csv into the seed tool's
// JSONL, byte for byte (llm_decode_bench.py 0.4.29,
// _build_gpqa_diamond_jsonl): for each row, its Record ID, Question,
// Correct Answer, Incorrect Answer 1–3, High-level domain and Subdomain,
// stripped; the four options, the right one first, shuffled by
// random.Random("gpqa-diamond-<record id>"); the answer's letter and index
// (its first occurrence); one json.dumps(sort_keys=True, ensure_ascii=True,
// separators=(",", ":")) line each, every line ending in "\n". A row
// missing any of them is an error naming it.
func BuildGPQADiamond(csvBytes []byte) ([]byte, error) {
	if !utf8.Valid(csvBytes) {
		return nil, errors.New("gpqa_diamond.csv is not UTF-8")
	}
	rows := pyCSV(string(csvBytes))
	if len(rows) == 0 {
		return nil, errors.New("gpqa_diamond.csv is empty")
	}
	header := rows[0]
	var out strings.Builder
	n := 0
	for _, rec := range rows[1:] {
		if len(rec) == 0 {
			continue // DictReader skips empty records
		}
		get := func(name string) string {
			v := "" // dict(zip(fieldnames, row)): a repeated column's last wins
			for i, h := range header {
				if h == name {
					v = ""
					if i < len(rec) {
						v = pyStrip(rec[i])
					}
				}
			}
			return v
		}
		id, q, correct, domain, sub := get("Record ID"), get("Question"), get("Correct Answer"), get("High-level domain"), get("Subdomain")
		opts := []string{correct, get("Incorrect Answer 1"), get("Incorrect Answer 2"), get("Incorrect Answer 3")}
		if id == "" || q == "" || correct == "" || opts[1] == "" || opts[2] == "" || opts[3] == "" || domain == "" {
			return nil, fmt.Errorf("GPQA diamond CSV row %d is malformed", n)
		}
		shuffleStrings(newPyRandom("gpqa-diamond-"+id), opts)
		idx := 0
		for opts[idx] != correct {
			idx++
		}
		var b strings.Builder
		b.WriteString(`{"answer":`)
		pyJSONString(&b, OptionLetters[idx:idx+1])
		b.WriteString(`,"answer_index":` + strconv.Itoa(idx) + `,"category":`)
		pyJSONString(&b, domain)
		b.WriteString(`,"options":[`)
		for i, o := range opts {
			if i > 0 {
				b.WriteByte(',')
			}
			pyJSONString(&b, o)
		}
		b.WriteString(`],"question":`)
		pyJSONString(&b, q)
		b.WriteString(`,"record_id":`)
		pyJSONString(&b, id)
		b.WriteString(`,"subdomain":`)
		pyJSONString(&b, sub)
		b.WriteString("}\n")
		out.WriteString(b.String())
		n++
	}
	if n == 0 {
		return nil, errors.New("gpqa_diamond.csv holds no questions")
	}
	return []byte(out.String()), nil
}
