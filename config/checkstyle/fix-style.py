#!/usr/bin/env python3
"""Mechanical fixes for three of config/checkstyle/checkstyle.xml's checks, over the hand-written sources.

  config/checkstyle/fix-style.py imports [FILE...]   regroup imports: static, java.*, libraries, net.fips.*
  config/checkstyle/fix-style.py fqn [FILE...]       inline fully-qualified type names -> imports
  config/checkstyle/fix-style.py final REPORT        add `final` where checkstyle's REPORT (its console output,
                                                     e.g. ./mvnw -B checkstyle:check@checkstyle > REPORT) says a
                                                     parameter should be final
  config/checkstyle/fix-style.py unused REPORT       delete the imports REPORT calls unused

Without FILEs: every *.java under the repository except generated code (**/gen/**) and module-info.java. Each
rewrite keeps the order inside a group and never touches comments or string literals; a name that would clash with
an import or a type of the file's own package is left as it is and listed. Review with git diff and compile.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def java_files(args):
    if args:
        return args
    out = []
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = [x for x in dirs if x not in ('.git', 'target', 'gen', 'node_modules')]
        for f in files:
            if f.endswith('.java') and f != 'module-info.java':
                out.append(os.path.join(d, f))
    return sorted(out)


def code_mask(text):
    """One bool per character: True where the character is code (not a comment, string, char or text block)."""
    mask = [True] * len(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            for k in range(i, j):
                mask[k] = False
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                mask[k] = False
            i = j
        elif text.startswith('"""', i):
            j = i + 3
            while j < n and not text.startswith('"""', j):
                j += 2 if text[j] == '\\' else 1
            j = min(n, j + 3)
            for k in range(i, j):
                mask[k] = False
            i = j
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(n, j + 1)
            for k in range(i, j):
                mask[k] = False
            i = j
        else:
            i += 1
    return mask


IMPORT = re.compile(r'^import\s+(static\s+)?([\w.]+(?:\.\*)?)\s*;\s*$')


def import_block(lines):
    """(first, last) line indexes of the import block, or None; last is inclusive."""
    idx = [i for i, l in enumerate(lines) if IMPORT.match(l)]
    if not idx:
        return None
    return idx[0], idx[-1]


def group_of(static, name):
    if static:
        return 0
    if name.startswith('java.'):
        return 1
    if name.startswith('net.fips.'):
        return 3
    return 2


def fix_imports(path):
    text = open(path, encoding='utf-8').read()
    lines = text.split('\n')
    block = import_block(lines)
    if block is None:
        return False
    first, last = block
    groups = [[], [], [], []]
    for l in lines[first:last + 1]:
        m = IMPORT.match(l)
        if m:
            groups[group_of(bool(m.group(1)), m.group(2))].append(l.rstrip())
        elif l.strip():
            print(f'{path}: non-import line inside the import block, left as is: {l.strip()}')
            return False
    out = []
    for g in groups:
        if g:
            if out:
                out.append('')
            out.extend(g)
    if out == lines[first:last + 1]:
        return False
    lines[first:last + 1] = out
    open(path, 'w', encoding='utf-8').write('\n'.join(lines))
    return True


FQN = re.compile(r'(?<![\w.])((?:java|javax|jdk|sun|com|org|net)\.(?:[a-z][a-z0-9_]*\.)*)([A-Z]\w*)')
PACKAGE = re.compile(r'^package\s+([\w.]+)\s*;', re.M)


def fix_fqn(path):
    text = open(path, encoding='utf-8').read()
    pm = PACKAGE.search(text)
    package = pm.group(1) if pm else ''
    mask = code_mask(text)
    lines = text.split('\n')
    # Simple names already imported (and from where), and the types of this file's package (files beside it).
    imported = {}
    for l in lines:
        m = IMPORT.match(l)
        if m and not m.group(1) and not m.group(2).endswith('*'):
            imported[m.group(2).rsplit('.', 1)[1]] = m.group(2)
    siblings = {f[:-5] for f in os.listdir(os.path.dirname(path)) if f.endswith('.java')}
    declared = set(re.findall(r'\b(?:class|interface|enum|record)\s+([A-Z]\w*)', text))
    edits = []
    new_imports = {}
    offset = 0
    for ln, l in enumerate(lines):
        if re.match(r'^\s*(import|package)\b', l):
            offset += len(l) + 1
            continue
        for m in FQN.finditer(l):
            pos = offset + m.start()
            if not mask[pos]:
                continue
            pkg = m.group(1)[:-1]
            simple = m.group(2)
            fqn = pkg + '.' + simple
            if pkg in ('java.lang', package):
                if simple in imported and imported[simple] != fqn:
                    print(f'{path}:{ln + 1}: {fqn} clashes with import {imported[simple]}; left')
                    continue
                edits.append((pos, pos + len(m.group(1)), ''))
                continue
            if (simple in imported and imported[simple] != fqn) or simple in new_imports and new_imports[simple] != fqn \
                    or simple in siblings or simple in declared:
                print(f'{path}:{ln + 1}: {fqn} clashes with a type named {simple} here; left')
                continue
            edits.append((pos, pos + len(m.group(1)), ''))
            if simple not in imported:
                new_imports[simple] = fqn
        offset += len(l) + 1
    if not edits:
        return False
    for start, end, repl in sorted(edits, reverse=True):
        text = text[:start] + repl + text[end:]
    if new_imports:
        lines = text.split('\n')
        block = import_block(lines)
        adds = [f'import {f};' for f in sorted(new_imports.values())]
        if block is None:
            pl = next(i for i, l in enumerate(lines) if l.startswith('package '))
            lines[pl + 1:pl + 1] = [''] + adds
        else:
            lines[block[1] + 1:block[1] + 1] = adds
        text = '\n'.join(lines)
    open(path, 'w', encoding='utf-8').write(text)
    fix_imports(path)
    return True


def fix_final(report):
    where = {}
    pat = re.compile(r'^\[(?:ERROR|WARN(?:ING)?)\] (/\S+?\.java):(\d+):(\d+): Parameter \w+ should be final')
    for l in open(report, encoding='utf-8'):
        m = pat.match(l.strip())
        if m:
            where.setdefault(m.group(1), set()).add((int(m.group(2)), int(m.group(3))))
    for path, spots in where.items():
        lines = open(path, encoding='utf-8').read().split('\n')
        for ln, col in sorted(spots, reverse=True):
            l = lines[ln - 1]
            lines[ln - 1] = l[:col - 1] + 'final ' + l[col - 1:]
        open(path, 'w', encoding='utf-8').write('\n'.join(lines))
        print(f'{path}: {len(spots)} parameter(s) made final')


def fix_unused(report):
    where = {}
    pat = re.compile(r'^\[(?:ERROR|WARN(?:ING)?)\] (/\S+?\.java):(\d+):\d+: Unused import')
    for l in open(report, encoding='utf-8'):
        m = pat.match(l.strip())
        if m:
            where.setdefault(m.group(1), set()).add(int(m.group(2)))
    for path, spots in where.items():
        lines = open(path, encoding='utf-8').read().split('\n')
        for ln in sorted(spots, reverse=True):
            if IMPORT.match(lines[ln - 1]):
                del lines[ln - 1]
        open(path, 'w', encoding='utf-8').write('\n'.join(lines))
        fix_imports(path)
        print(f'{path}: {len(spots)} unused import(s) removed')


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ('imports', 'fqn', 'final', 'unused'):
        print(__doc__)
        sys.exit(2)
    what, rest = sys.argv[1], sys.argv[2:]
    if what in ('final', 'unused'):
        (fix_final if what == 'final' else fix_unused)(rest[0])
        return
    fix = fix_imports if what == 'imports' else fix_fqn
    changed = [p for p in java_files(rest) if fix(p)]
    print(f'{what}: {len(changed)} file(s) changed')


if __name__ == '__main__':
    main()
