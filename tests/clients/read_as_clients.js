#!/usr/bin/env node
// Parse vaultsync's pages and notes with the parsers its users' tools run, and print what they
// read, for tests/test_clients.py to judge.
//
//   node read_as_clients.js mldoc    < pages.json   Logseq's own parser (mldoc), with the options
//                                                   Logseq passes it (graph-parser's mldoc.cljs)
//   node read_as_clients.js markdown < notes.json   markdown-it (CommonMark), with Obsidian-style
//                                                   [[wiki-links]] and $math$ (texmath + KaTeX)
//
// stdin : JSON [{"id": "...", "text": "..."}, ...]  (notes: the body, without frontmatter)
// stdout: JSON {"parser": "...", "version": "...", "results": [{"id", "ast"} | {"id", "tokens"}]}
'use strict';

function readStdin(done) {
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => { input += chunk; });
  process.stdin.on('end', () => done(JSON.parse(input || '[]')));
}

// Logseq's default-config-map for Markdown files (logseq/graph-parser, mldoc.cljs).
const LOGSEQ_CONFIG = JSON.stringify({
  toc: false, parse_outline_only: false, heading_number: false, keep_line_break: true,
  format: 'Markdown', heading_to_list: false, exporting_keep_properties: true,
  inline_type_with_pos: false, inline_skip_macro: false, export_md_remove_options: [],
  hiccup_in_block: true, enable_drawers: true, parse_marker: true, parse_priority: true,
});

function mldoc(pages) {
  const { Mldoc } = require('mldoc');
  return {
    parser: 'mldoc',
    version: require('mldoc/package.json').version,
    results: pages.map(({ id, text }) => ({ id, ast: JSON.parse(Mldoc.parseJson(text, LOGSEQ_CONFIG)) })),
  };
}

function markdown(notes) {
  const MarkdownIt = require('markdown-it');
  const md = new MarkdownIt({ html: true, linkify: false })
    // Obsidian's link syntax: any target but brackets, `|` and a line break; an optional label
    .use(require('@ig3/markdown-it-wikilinks')({ linkPattern: /\[\[([^\[\]|\n]+)(\|([^\[\]\n]+))?\]\]/ }))
    .use(require('markdown-it-texmath'), { engine: require('katex'), delimiters: 'dollars' });
  md.core.ruler.disable('text_join');  // keep escapes (`\\$`) apart from text (a bare `$`)
  const brief = (t) => {
    const out = { type: t.meta && t.meta.match ? 'wikilink' : t.type };  // the plugin's token
    if (t.meta && t.meta.match) out.content = t.meta.match[0];
    if (!t.children && t.content) out.content = t.content;
    if (t.markup) out.markup = t.markup;
    if (t.attrGet('href') !== null) out.href = t.attrGet('href');
    return out;
  };
  const flat = (tokens) => tokens.flatMap((t) => [brief(t), ...(t.children ? flat(t.children) : [])]);
  return {
    parser: 'markdown-it',
    version: require('markdown-it/package.json').version,
    results: notes.map(({ id, text }) => ({ id, tokens: flat(md.parse(text, {})) })),
  };
}

const modes = { mldoc, markdown };
const mode = modes[process.argv[2]];
if (!mode) {
  process.stderr.write('usage: read_as_clients.js mldoc|markdown < items.json\n');
  process.exit(2);
}
readStdin((items) => process.stdout.write(JSON.stringify(mode(items))));
