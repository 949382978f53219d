"""A small, fixed multi-file diff for the diff viewer's tests and snapshots (no git needed)."""

from __future__ import annotations

SAMPLE_DIFF = """\
diff --git a/calc.py b/calc.py
index 3b18e51..a2c4f10 100644
--- a/calc.py
+++ b/calc.py
@@ -1,6 +1,7 @@
 import math
+import sys
 
 def add(a, b):
-    return a+b
+    return a + b
 
 def sub(a, b):
@@ -20,5 +21,6 @@ def mul(a, b):
 def div(a, b):
-    return a / b
+    if b == 0:
+        raise ZeroDivisionError("b is zero")
+    return a / b
 
diff --git a/notes.md b/notes.md
new file mode 100644
index 0000000..e69de29
--- /dev/null
+++ b/notes.md
@@ -0,0 +1,3 @@
+# Notes
+
+Markup must stay literal: [bold]x[/] and [red]y[/red].
diff --git a/old.txt b/old.txt
deleted file mode 100644
index 1111111..0000000
--- a/old.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-first line
-second line
"""
