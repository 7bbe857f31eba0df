// Counts the symbols of TypeScript files with the TypeScript compiler's own
// parser, for `mnemotree bench code`: classes, interfaces, enums and type
// aliases declared at a module's top (exported or not), functions declared
// there with a body (overload signatures are not code), constants whose
// value is a function, and the methods, constructors and accessors with a
// body inside a class. Functions nested in functions are left out, as
// ingest keeps them in their function's text.
//
// Usage: node ts_symbols.js TYPESCRIPT_MODULE < files.json  (a JSON list of paths)
"use strict";
const fs = require("fs");
const ts = require(process.argv[2]);

const counts = { class: 0, function: 0, method: 0, interface: 0, enum: 0, type: 0 };
const K = ts.SyntaxKind;

function holdsFunction(statement) {
  const list = statement.declarationList.declarations;
  if (list.length !== 1 || !list[0].initializer) return false;
  const kind = list[0].initializer.kind;
  return kind === K.ArrowFunction || kind === K.FunctionExpression;
}

function member(node) {
  const withBody = [K.MethodDeclaration, K.Constructor, K.GetAccessor, K.SetAccessor];
  if (withBody.includes(node.kind) && node.body) counts.method += 1;
}

function statement(node) {
  switch (node.kind) {
    case K.FunctionDeclaration:
      if (node.body) counts.function += 1;
      break;
    case K.ClassDeclaration:
      counts.class += 1;
      node.members.forEach(member);
      break;
    case K.InterfaceDeclaration:
      counts.interface += 1;
      break;
    case K.EnumDeclaration:
      counts.enum += 1;
      break;
    case K.TypeAliasDeclaration:
      counts.type += 1;
      break;
    case K.VariableStatement:
      if (holdsFunction(node)) counts.function += 1;
      break;
  }
}

const files = JSON.parse(fs.readFileSync(0, "utf8"));
let read = 0;
for (const path of files) {
  const text = fs.readFileSync(path, "utf8");
  const kind = path.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, kind);
  source.statements.forEach(statement);
  read += 1;
}
process.stdout.write(JSON.stringify({ ...counts, files: read }));
