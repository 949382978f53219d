"""The "new" half on hashids 2.3.0: a TypeScript library (src/hashids.ts, src/util.ts) whose npm tarball ships
its sources and its jest tests (src/tests/). The release has no tsconfig or jest config of its own (upstream
generates them with a scaffolding tool), so the fixture's second commit is the developer's local setup: a
strict tsconfig.json, a jest config (ts-jest), and `npm test` = type check then tests. node_modules/ from npm
(typescript, jest, ts-jest, exact versions from the lock file in hashids-env/), git-ignored."""

from __future__ import annotations

from benchreal.checks import all_of, catches_mutant, file_contains, number_re, says, suite_passes
from benchreal.checks_text import name_gone, section_says
from benchreal.spec import Append, Env, Plant, Project, Reference, Replace, ReplaceAll, Source, Suite, Task, Write

MAIN = "src/hashids.ts"
UTIL = "src/util.ts"

TSCONFIG = """{
  "compilerOptions": {
    "target": "es2020",
    "module": "commonjs",
    "moduleResolution": "node",
    "lib": ["es2020"],
    "types": ["node", "jest"],
    "strict": true,
    "noUncheckedIndexedAccess": true,
    "esModuleInterop": true,
    "skipLibCheck": true,
    "noEmit": true
  },
  "include": ["src/**/*.ts"],
  "exclude": ["src/tests-mjs"]
}
"""

JEST_CONFIG = """/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src'],
  testMatch: ['**/src/tests/**/*.test.ts'],
  transform: {
    '^.+\\\\.ts$': ['ts-jest', { isolatedModules: true }],
  },
}
"""

ENCODE_HEX = """    const numbers = splitAtIntervalAndMap(hex, SPLIT_AT_EVERY_NTH, (part) =>
      Number.parseInt(`1${part}`, 16),
    )
    return this.encode(numbers)"""
ENCODE_HEX_BUG = """    const numbers: number[] = splitAtIntervalAndMap(
      hex,
      SPLIT_AT_EVERY_NTH,
      (part) => `1${part}`,
    )
    return this.encode(numbers)"""

PROJECT = Project(
    name="hashids",
    shape="TypeScript: src/hashids.ts (the Hashids class) and src/util.ts (helpers); jest tests in src/tests/ "
          "(ts-jest); `npm test` runs tsc (strict) then jest; node_modules/ from npm",
    why="a real TypeScript library with its sources and tests in its npm tarball: the type checker judges "
        "renames and fixes, jest the behaviour",
    source=Source("npm", "hashids", "2.3.0", "90ee8e33c319e141082a9e80a8b91c150db09e7e1a4e4ac3594c9407857f63da",
                  "package", released="2023-05-20T12:00:00"),
    env=Env("node"),
    suite=Suite(("sh", "-c", "node_modules/.bin/tsc -p . && node_modules/.bin/jest --ci --colors=false --runInBand"),
                "jest",
                ("src/tests",)),
    plants={
        "tooling": Plant("tooling", "local dev setup: tsconfig, jest config, npm test = tsc + jest", (
            Write("tsconfig.json", TSCONFIG), Write("jest.config.js", JEST_CONFIG),
            Replace("package.json", '"test": "yarn test:format && yarn test:types && yarn test:lint && yarn test:code"',
                    '"test": "tsc -p . && jest"')),
            author="Noor Haddad <noor.haddad@proton.me>", date="2023-06-03T09:15:00"),
        "hex_strings": Plant("hex_strings", "encodeHex: keep the 12-digit groups as strings", (
            Replace(MAIN, ENCODE_HEX, ENCODE_HEX_BUG),),
            author="Noor Haddad <noor.haddad@proton.me>", date="2023-06-12T16:40:00"),
    },
)

TSC_ERROR = ("    src/hashids.ts(180,11): error TS2322: Type 'string[]' is not assignable to type 'number[]'.\n"
             "      Type 'string' is not assignable to type 'number'.")

EMPTY_ID_TEST = """import Hashids from '../hashids'

describe('isValidId', () => {
  const hashids = new Hashids('salt')

  it('accepts an id that encode() made', () => {
    expect(hashids.isValidId(hashids.encode(1, 2, 3))).toBe(true)
  })

  it('rejects an empty string', () => {
    expect(hashids.isValidId('')).toBe(false)
  })
})
"""

TASKS = [
    Task("nw_hid_question", "new", "question",
         "How many unique characters does a custom alphabet need at minimum for new Hashids(salt, minLength, "
         "alphabet)? And what happens if mine has fewer?",
         says(number_re(16), r"throw|error|exception"),
         Reference(answer="At least 16 unique characters; with fewer the constructor throws an Error "
                          "(\"Hashids: alphabet must contain at least 16 unique characters\").",
                   wrong="It needs at least 4; a shorter alphabet is padded with characters of the default one.")),
    Task("nw_hid_refactor", "new", "refactor",
         "The `shuffle` helper in src/util.ts isn't random at all — it's a deterministic, salt-driven shuffle — and "
         "the name keeps confusing people. Rename it to `consistentShuffle` everywhere.",
         all_of(name_gone(r"\bshuffle\b", "src/*.ts"),
                file_contains(UTIL, r"export\s+(?:function|const)\s+consistentShuffle\b"), suite_passes()),
         Reference(edits=(ReplaceAll(UTIL, "function shuffle(", "function consistentShuffle("),
                          ReplaceAll(MAIN, "  shuffle,\n", "  consistentShuffle,\n"),
                          ReplaceAll(MAIN, "= shuffle(", "= consistentShuffle(")),
                   wrong_edits=(ReplaceAll(UTIL, "function shuffle(", "function consistentShuffle("),)),
         ("tooling",)),
    Task("nw_hid_fix", "new", "fix",
         "`npm test` doesn't even get to jest any more, tsc fails:\n\n" + TSC_ERROR + "\n\nPlease fix the code "
         "(properly, not by silencing the compiler).",
         suite_passes(tests_untouched=True),
         Reference(edits=(Replace(MAIN, ENCODE_HEX_BUG, ENCODE_HEX),),
                   wrong_edits=(Replace(MAIN, "      (part) => `1${part}`,\n    )",
                                        "      (part) => `1${part}`,\n    ) as unknown as number[]"),)),
         ("tooling", "hex_strings")),
    Task("nw_hid_add_test", "new", "add_test",
         "isValidId('') should be false — an empty string is never a valid id — but no test pins that down. Add a "
         "jest test for isValidId covering that (and that an id made by encode() is valid).",
         catches_mutant((Replace(UTIL, "      .join('')}]+$`,", "      .join('')}]*$`,"),)),
         Reference(edits=(Write("src/tests/is-valid-id.test.ts", EMPTY_ID_TEST),),
                   wrong_edits=(Write("src/tests/is-valid-id.test.ts",
                                      EMPTY_ID_TEST.replace("expect(hashids.isValidId('')).toBe(false)",
                                                            "expect(hashids.isValidId('!')).toBe(false)")),)),
         ("tooling",)),
    Task("nw_hid_docs", "new", "docs",
         "Add a \"Development\" section to the README for contributors: how to install the dev dependencies and "
         "run the checks locally — `npm test` runs the TypeScript type check (tsc) and then the jest tests.",
         section_says("README.md", r"develop|contribut", r"\btsc\b|type[- ]?check", r"\bjest\b"),
         Reference(edits=(Replace("README.md", "\n## License",
                                  "\n## Development\n\nInstall the dev dependencies with `npm install`, then run "
                                  "`npm test`: it type-checks the sources with `tsc` and runs the jest tests in "
                                  "src/tests/.\n\n## License"),),
                   wrong_edits=(Append("README.md", "\n## Development\n\nRun `npm test` before you push.\n"),)),
         ("tooling",)),
]
PROJECT.tasks = TASKS
