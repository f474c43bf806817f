// The text helpers of the whole harness, each written once: trimming, joining, word-wrapping,
// "did you mean" matching and its wording, slugs, strict number parsing.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace foliolab {

// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions), ASCII
// case-insensitive.
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, if it is close enough to be a plausible typo
// (distance 1 for words up to 4 characters, 2 up to 8, 3 beyond).
std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string> candidates);

// "; did you mean '<closest>'?" when a candidate is close enough (closest_match), else "".
// Every unknown-name message appends this, so they all read alike.
std::string did_you_mean(std::string_view word, std::span<const std::string> candidates);
// The same wording for a suggestion computed elsewhere: "; did you mean '<suggestion>'?".
std::string did_you_mean_text(std::string_view suggestion);

// `text` without leading and trailing ASCII whitespace (space, tab, CR, LF, VT, FF).
std::string_view trim(std::string_view text);

// The items with `sep` between them.
std::string join(std::span<const std::string> items, std::string_view sep);

// Columns `s` takes on a terminal: its UTF-8 code points, each one column (the report tables
// use "±", "×", "†", "…").
size_t display_width(std::string_view s);

// `text` word-wrapped at `width` columns (display_width), its own leading spaces kept and
// continuation lines indented `indent` spaces beyond them; a word longer than `width` stays
// whole on a line of its own.
std::vector<std::string> word_wrap(const std::string& text, size_t width, size_t indent);

// The words of `text` between runs of spaces (no empty words).
std::vector<std::string> split_words(std::string_view text);

// The lines of `text` split at '\n' (a trailing '\r' is dropped; no empty last line).
std::vector<std::string_view> split_lines(std::string_view text);
// The views point into `text`: a temporary string would be gone before they are read (twice
// found the hard way: `for (auto v : split_lines(get("key")))`).
std::vector<std::string_view> split_lines(std::string&& text) = delete;

// Lowercase; keeps [a-z0-9._-], every other character becomes '-'; runs of '-' collapse to
// one; leading and trailing '-' are dropped. Never returns "" ("x" instead).
std::string slugify(std::string_view text);

// True when `text` is non-empty and every character is an ASCII letter, digit or in `extra`.
bool is_word(std::string_view text, std::string_view extra);

// True for "a/b.c"-style relative paths: [A-Za-z0-9_/.-]+, no leading '/', no "." or ".."
// component, no empty component.
bool is_relative_path(std::string_view text);

// Decimal integer, optional leading '-', nothing else (no spaces, no "0x", no fraction).
std::optional<int64_t> parse_int(std::string_view text);
// Unsigned decimal integer, digits only (no sign, spaces or fraction); base 16 when asked.
std::optional<uint64_t> parse_uint(std::string_view text, int base = 10);
// A decimal number as from_chars reads it (no leading '+', no spaces), the whole text.
std::optional<double> parse_double(std::string_view text);

// Memory size in MiB: a plain integer (MiB) or an integer with a binary suffix
// K, M, G or T (case-insensitive, optionally followed by "iB" or "B"): "512M", "1G", "1GiB".
// On failure returns nullopt and sets *why.
std::optional<uint64_t> parse_memory_mib(std::string_view text, std::string* why);
// The same in KiB, so "64K" is a size too (a plain integer is still MiB).
std::optional<uint64_t> parse_memory_kib(std::string_view text, std::string* why);

}  // namespace foliolab
