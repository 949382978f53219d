"""cachetools 5.5.0: a src-layout package of classes (Cache and eight subclasses, two decorators), pytest suite;
its environment is a git-ignored ``.venv/`` inside the repo with the project installed editable."""

from __future__ import annotations

from benchreal.checks import catches_mutant, number_re
from benchreal.kinds import code_change, fix_bug, question, suite_counts
from benchreal.spec import Append, Env, Plant, Project, Reference, Replace, Source, Suite, Task

INIT = "src/cachetools/__init__.py"

PROJECT = Project(
    name="cachetools",
    shape="src layout, a package of classes; pytest; .venv/ in the repo (git-ignored), installed editable",
    why="a real class hierarchy (Cache, FIFO/LFU/LRU/MRU/RR/TTL/TLRU caches) with name-mangled state, "
        "so adding or counting methods needs the right class",
    source=Source("pypi", "cachetools", "5.5.0", "2cc24fb4cbe39633fb7badd9db9ca6295d766d9c2995f245725a46715d050f2a",
                  "cachetools-5.5.0", drop=("*.egg-info", "__pycache__", "*.pyc")),
    env=Env("repo-venv", editable=True, packages=(
        "pytest==8.3.3", "iniconfig==2.0.0", "packaging==24.2", "pluggy==1.5.0", "pytest-cov==5.0.0",
        "coverage==7.6.8", "setuptools==75.6.0", "wheel==0.45.1")),
    suite=Suite(("{python}", "-m", "pytest", "-q", "-p", "no:cacheprovider"), "pytest", ("tests",)),
    plants={
        "fifo_bug": Plant("fifo_bug", "FIFOCache: pick the entry to evict straight from the order", (
            Replace(INIT, '"""Remove and return the `(key, value)` pair first inserted."""\n'
                          "        try:\n            key = next(iter(self.__order))",
                    '"""Remove and return the `(key, value)` pair first inserted."""\n'
                    "        try:\n            key = next(reversed(self.__order))"),)),
        "lfu_bug": Plant("lfu_bug", "LFUCache: count uses up", (
            Replace(INIT, "        value = cache_getitem(self, key)\n        if key in self:  # __missing__ may not store item\n"
                          "            self.__counter[key] -= 1",
                    "        value = cache_getitem(self, key)\n        if key in self:  # __missing__ may not store item\n"
                    "            self.__counter[key] += 1"),)),
    },
)

PEEK = '''

    def peek(self, key, default=None):
        """Return the value for `key` without marking it as recently used."""
        if key in self:
            return Cache.__getitem__(self, key)
        return default
'''

MOST_COMMON = '''

    def most_common(self, n):
        """Return the `n` keys used most often, most used first."""
        return [key for key, _ in sorted(self.__counter.items(), key=lambda kv: kv[1])[:n]]
'''

LIFO = '''

class LIFOCache(Cache):
    """Last In First Out (LIFO) cache implementation."""

    def __init__(self, maxsize, getsizeof=None):
        Cache.__init__(self, maxsize, getsizeof)
        self.__order = collections.OrderedDict()

    def __setitem__(self, key, value, cache_setitem=Cache.__setitem__):
        cache_setitem(self, key, value)
        try:
            self.__order.move_to_end(key)
        except KeyError:
            self.__order[key] = None

    def __delitem__(self, key, cache_delitem=Cache.__delitem__):
        cache_delitem(self, key)
        del self.__order[key]

    def popitem(self):
        """Remove and return the `(key, value)` pair last inserted."""
        try:
            key = next(reversed(self.__order))
        except StopIteration:
            raise KeyError("%s is empty" % type(self).__name__) from None
        else:
            return (key, self.pop(key))
'''

LIFO_TEST = '''import unittest

from cachetools import LIFOCache


class LIFOCacheTest(unittest.TestCase):
    def test_lifo(self):
        cache = LIFOCache(maxsize=2)
        cache[1] = 1
        cache[2] = 2
        cache[3] = 3
        self.assertEqual(len(cache), 2)
        self.assertEqual(cache[1], 1)
        self.assertEqual(cache[3], 3)
        self.assertNotIn(2, cache)
'''

TASKS = [
    question("ct_behaviour_too_large", "heldout", "behaviour",
             "What happens in cachetools when I store a single value whose size is bigger than the cache's maxsize?",
             r"ValueError", answer="Cache.__setitem__ raises ValueError('value too large').",
             wrong="The least recently used items are evicted until it fits."),
    question("ct_where_hashkey", "heldout", "where", "Where is hashkey defined?", r"keys\.py",
             answer="In src/cachetools/keys.py.", wrong="In src/cachetools/__init__.py."),
    question("ct_count_lru_methods", "tune", "count",
             "How many methods does the LRUCache class define itself (not counting inherited ones)?", number_re(6),
             answer="LRUCache defines 6 methods: __init__, __getitem__, __setitem__, __delitem__, popitem and "
                    "__update.", wrong="It defines 5 methods."),
    code_change("ct_one_line_ttl_default", "heldout", "one_line",
                "Change the default ttl of the ttl_cache decorator to 300 seconds.",
                "import inspect, cachetools.func as f\np = inspect.signature(f.ttl_cache).parameters\n"
                "assert p['ttl'].default == 300, p['ttl'].default\nassert p['maxsize'].default == 128",
                "ttl_cache(ttl=300) by default",
                Replace("src/cachetools/func.py", "def ttl_cache(maxsize=128, ttl=600,", "def ttl_cache(maxsize=128, ttl=300,")),
    code_change("ct_add_method_peek", "tune", "add_method",
                "Add a peek(key, default=None) method to LRUCache that returns the value for key without marking it "
                "as recently used (and returns default when the key is missing).",
                "from cachetools import LRUCache\nc = LRUCache(maxsize=2)\nc['a'] = 1\nc['b'] = 2\n"
                "assert c.peek('a') == 1\nassert c.peek('zz') is None and c.peek('zz', 7) == 7\n"
                "c['c'] = 3\nassert 'a' not in c and 'b' in c and 'c' in c, dict(c)", "peek() works",
                Replace(INIT, "\n\nclass MRUCache(Cache):", PEEK.rstrip("\n") + "\n\n\nclass MRUCache(Cache):")),
    code_change("ct_add_method_most_common", "heldout", "add_method",
                "Add a method most_common(n) to LFUCache that returns a list of the n keys used most often, "
                "most used first.",
                "from cachetools import LFUCache\nc = LFUCache(maxsize=10)\nc['a'] = 1\nc['b'] = 2\nc['c'] = 3\n"
                "c['a']; c['a']; c['b']\nassert c.most_common(2) == ['a', 'b'], c.most_common(2)\n"
                "assert c.most_common(1) == ['a']", "most_common() works",
                Replace(INIT, "\n\nclass LRUCache(Cache):", MOST_COMMON.rstrip("\n") + "\n\n\nclass LRUCache(Cache):")),
    Task("ct_add_test_typedkey", "tune", "add_test",
         "Add a test to tests/test_keys.py checking that typedkey gives different keys for keyword arguments "
         "of different types (x=1 versus x=1.0).",
         catches_mutant((Replace("src/cachetools/keys.py",
                                 "    key += tuple(type(v) for _, v in sorted(kwargs.items()))\n", ""),)),
         Reference(edits=(Append("tests/test_keys.py",
                                 "\n\ndef test_typedkey_keyword_types():\n"
                                 "    key = cachetools.keys.typedkey\n"
                                 "    assert key(x=1) != key(x=1.0)\n"),))),
    fix_bug("ct_fix_fifo", "heldout",
            "The FIFOCache tests started failing after my last commit. Fix the bug in the library; don't change the "
            "tests.", "fifo_bug",
            Replace(INIT, "key = next(reversed(self.__order))", "key = next(iter(self.__order))")),
    suite_counts("ct_run_suite", "tune", "Run the test suite and tell me how many tests pass and how many fail.",
                 "lfu_bug", answer="214 passed, 1 failed.", wrong="215 passed, 0 failed."),
    code_change("ct_multi_lifo", "tune", "multi_step",
                "Add a LIFOCache class (last in, first out: when the cache is full it evicts the most recently "
                "inserted item) to cachetools, export it in __all__, and add tests for it in tests/test_lifo.py.",
                "import cachetools\nfrom cachetools import LIFOCache\nassert 'LIFOCache' in cachetools.__all__\n"
                "c = LIFOCache(maxsize=2)\nc[1] = 1\nc[2] = 2\nc[3] = 3\n"
                "assert len(c) == 2 and 1 in c and 3 in c and 2 not in c, dict(c)", "LIFOCache works",
                Replace(INIT, '    "FIFOCache",\n', '    "FIFOCache",\n    "LIFOCache",\n'),
                Replace(INIT, "\n\nclass LFUCache(Cache):", LIFO.rstrip("\n") + "\n\n\nclass LFUCache(Cache):"),
                Append("tests/test_lifo.py", LIFO_TEST), test_file="tests/test_lifo.py", test_mentions=r"LIFOCache"),
]
PROJECT.tasks = TASKS
