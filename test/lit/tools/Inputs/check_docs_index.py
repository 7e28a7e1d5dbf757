"""check_docs_index.py DOCS_DIR: every Markdown page of DOCS_DIR (and every file of its formats/
folder) is linked from DOCS_DIR/README.md, and every link there names an existing file; prints the
offenders and fails otherwise."""
import os
import re
import sys

docs = sys.argv[1]
index = open(os.path.join(docs, "README.md"), encoding="utf-8").read()
links = set(re.findall(r"\]\(([^)#]+)\)", index))
pages = [f for f in os.listdir(docs) if f.endswith(".md") and f != "README.md"]
problems = ["not in the index: " + page for page in sorted(pages) if page not in links]
if os.path.isdir(os.path.join(docs, "formats")) and "formats/" not in links:
    problems.append("not in the index: formats/")
problems += ["the index links a missing file: " + link for link in sorted(links)
             if not re.match(r"[a-z]+:", link) and not os.path.exists(os.path.join(docs, link))]
for problem in problems:
    print("docs/README.md: " + problem)
print("%d pages indexed" % len(pages))
sys.exit(1 if problems else 0)
