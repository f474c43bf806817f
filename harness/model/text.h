// Small text helpers of the model: "did you mean" matching, slugs, strict number parsing.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace foliolab {

// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions), ASCII
// case-insensitive.
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, if it is close enough to be a plausible typo
// (distance 1 for words up to 4 characters, 2 up to 8, 3 beyond).
std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string> candidates);

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

// Memory size in MiB: a plain integer (MiB) or an integer with a binary suffix
// K, M, G or T (case-insensitive, optionally followed by "iB" or "B"): "512M", "1G", "1GiB".
// On failure returns nullopt and sets *why.
std::optional<uint64_t> parse_memory_mib(std::string_view text, std::string* why);

}  // namespace foliolab
