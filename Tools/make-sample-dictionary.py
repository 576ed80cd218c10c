#!/usr/bin/env python3
"""Writes assets/dictionary/words.txt: the sample tree's one file over 1 MiB (about 1.3 MB).

A sorted word list with short definitions, built from a small vocabulary by a seeded SplitMix64
generator, so the output is the same on every machine and Python version, and it compresses well
(zlib -9 brings it to roughly a tenth, which keeps the repository small).

Usage: python3 Tools/make-sample-dictionary.py [OUTPUT]   (default: assets/dictionary/words.txt)
"""
import os
import re
import sys

TARGET_BYTES = 1_300_000
MASK = (1 << 64) - 1


class SplitMix64:
    """The same generator as the tests' SeededRandom: stable across platforms."""

    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def pick(self, items):
        return items[self.next() % len(items)]


ONSETS = ["b", "br", "c", "ch", "d", "dr", "f", "fl", "g", "gr", "h", "k", "l", "m", "n", "p", "pl", "qu",
          "r", "s", "sh", "sk", "st", "t", "th", "tr", "v", "w", "z"]
VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "oo", "ou"]
CODAS = ["", "", "n", "r", "l", "s", "t", "m", "ck", "nd", "st", "ng"]
PARTS = ["noun", "noun", "noun", "verb", "verb", "adjective", "adverb"]
TEMPLATES = {
    "noun": ["a {adj} {thing} found in the {place}", "the {thing} used for {action}",
             "a kind of {thing}, usually {adj}", "a {adj} place near the {place}"],
    "verb": ["to {action} something {adv}", "to make a {thing} {adj}", "to move {adv} towards the {place}"],
    "adjective": ["{adj} like a {thing}", "very {adj}, as in the {place}", "not {adj} at all"],
    "adverb": ["in a {adj} way", "{adv}, as a {thing} would", "near the {place}, {adv}"],
}
WORDS = {
    "adj": ["small", "round", "bright", "quiet", "old", "green", "heavy", "soft", "narrow", "warm", "hidden",
            "tall", "cold", "sweet", "plain"],
    "thing": ["stone", "river", "lantern", "basket", "bird", "rope", "garden", "bell", "boat", "tool", "coat",
              "window", "fruit", "song", "map"],
    "place": ["hills", "market", "harbour", "forest", "valley", "kitchen", "village", "north", "coast", "field"],
    "action": ["carrying water", "counting sheep", "keeping time", "fishing", "weaving", "cooking", "building walls",
               "reading maps", "singing"],
    "adv": ["slowly", "quickly", "carefully", "often", "quietly", "gladly", "early", "together"],
}


EXAMPLES = {
    "noun": "example: \"the {word} of the village\"; plural: {word}s",
    "verb": "example: \"we {word} every morning\"; past: {word}ed",
    "adjective": "example: \"a very {word} morning\"; more {word}",
    "adverb": "example: \"they spoke {word}\"",
}


USAGE = ["common", "common", "uncommon", "rare", "old-fashioned"]
ORIGINS = ["northern", "coastal", "village", "mountain"]


def make_word(rng):
    syllables = 2 + rng.next() % 2
    return "".join(rng.pick(ONSETS) + rng.pick(VOWELS) + rng.pick(CODAS) for _ in range(syllables))


def definition(rng, part):
    text = rng.pick(TEMPLATES[part])
    for key, choices in WORDS.items():
        while "{" + key + "}" in text:
            text = text.replace("{" + key + "}", rng.pick(choices), 1)
    return re.sub(r"\ba ([aeiou])", r"an \1", text)


def main():
    output = sys.argv[1] if len(sys.argv) > 1 else os.path.join("assets", "dictionary", "words.txt")
    rng = SplitMix64(20240601)
    words = {}
    size = 0
    while size < TARGET_BYTES:
        word = make_word(rng)
        if word in words:
            continue
        part = rng.pick(PARTS)
        line = f"{word}\t{part}\t{definition(rng, part)}\t{EXAMPLES[part].format(word=word)}"
        line += f"\tusage: {rng.pick(USAGE)}; origin: {rng.pick(ORIGINS)} dialect; see the notes on {part}s in the preface\n"
        words[word] = line
        size += len(line.encode("utf-8"))
    os.makedirs(os.path.dirname(output) or ".", exist_ok=True)
    with open(output, "w", encoding="utf-8", newline="\n") as out:
        out.write("# assetpack sample dictionary: word<TAB>part of speech<TAB>definition, sorted by word\n")
        for word in sorted(words):
            out.write(words[word])


if __name__ == "__main__":
    main()
