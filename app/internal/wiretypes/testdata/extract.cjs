// Reads TypeScript sources with the TypeScript compiler's own checker and
// prints, as JSON, the wire shapes a Go test compares with schemas/*.json:
// every exported type (resolved: unions, literals, arrays, object fields and
// whether they are optional), every object literal passed to JSON.stringify
// that carries a string `type`, and every makeEnvelope("<type>", data) call
// with the fields of its data.
//
// usage: node extract.cjs <typescript module folder> <file.ts>...
"use strict";

const [tsDir, ...files] = process.argv.slice(2);
const ts = require(tsDir);

const program = ts.createProgram(files, {
  target: ts.ScriptTarget.ES2020,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
});
const checker = program.getTypeChecker();

const MAX_DEPTH = 8;

function shapeOf(type, depth) {
  if (depth > MAX_DEPTH) return { kind: "deep" };
  if (type.isUnion()) {
    const members = type.types.filter((t) => !(t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)));
    const nullable = members.length !== type.types.length;
    if (members.length > 0 && members.every((t) => t.isStringLiteral())) {
      return { kind: "enum", values: members.map((t) => t.value).sort(), nullable };
    }
    if (members.length > 0 && members.every((t) => t.flags & ts.TypeFlags.BooleanLiteral)) {
      return { kind: "prim", name: "boolean", nullable };
    }
    if (members.length === 1) return { ...shapeOf(members[0], depth + 1), nullable };
    return { kind: "union", members: members.map((t) => shapeOf(t, depth + 1)), nullable };
  }
  if (type.isStringLiteral()) return { kind: "enum", values: [type.value] };
  if (type.flags & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral)) return { kind: "prim", name: "string" };
  if (type.flags & (ts.TypeFlags.Number | ts.TypeFlags.NumberLiteral)) return { kind: "prim", name: "number" };
  if (type.flags & (ts.TypeFlags.Boolean | ts.TypeFlags.BooleanLiteral)) return { kind: "prim", name: "boolean" };
  if (type.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) return { kind: "any" };
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    const args = checker.getTypeArguments(type);
    return { kind: "array", elem: args.length ? shapeOf(args[0], depth + 1) : { kind: "any" } };
  }
  if (type.flags & ts.TypeFlags.Object) {
    const props = {};
    for (const p of checker.getPropertiesOfType(type)) {
      const decl = p.valueDeclaration || (p.declarations && p.declarations[0]);
      const pt = decl ? checker.getTypeOfSymbolAtLocation(p, decl) : checker.getTypeOfSymbol(p);
      props[p.name] = { optional: (p.flags & ts.SymbolFlags.Optional) !== 0, shape: shapeOf(pt, depth + 1) };
    }
    const index = checker.getIndexInfosOfType(type).length > 0;
    return { kind: "object", props, index };
  }
  return { kind: "other", text: checker.typeToString(type) };
}

// dataShape is the shape of an envelope's data argument. A variable typed
// as a plain record (const data: Record<string, unknown> = {…}) is read
// from its initializer plus the fields assigned to it later (data.x = …).
function dataShape(arg) {
  const shape = shapeOf(checker.getTypeAtLocation(arg), 0);
  if (!ts.isIdentifier(arg) || shape.kind !== "object" || Object.keys(shape.props).length > 0) return shape;
  const sym = checker.getSymbolAtLocation(arg);
  const decl = sym && sym.valueDeclaration;
  if (!decl || !ts.isVariableDeclaration(decl) || !decl.initializer || !ts.isObjectLiteralExpression(decl.initializer)) return shape;
  const fromInit = shapeOf(checker.getTypeAtLocation(decl.initializer), 0);
  const props = { ...fromInit.props };
  const scope = decl.parent.parent.parent; // declaration → list → statement → block
  const scan = (n) => {
    if (
      ts.isBinaryExpression(n) &&
      n.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isPropertyAccessExpression(n.left) &&
      checker.getSymbolAtLocation(n.left.expression) === sym
    ) {
      props[n.left.name.text] = { optional: true, shape: shapeOf(checker.getTypeAtLocation(n.right), 0) };
    }
    ts.forEachChild(n, scan);
  };
  if (scope) scan(scope);
  return { kind: "object", props, index: false };
}

function line(node) {
  const sf = node.getSourceFile();
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

const out = {};
for (const file of files) {
  const sf = program.getSourceFile(file);
  if (!sf) throw new Error(`cannot read ${file}`);
  const entry = { types: {}, sends: [], envelopes: [] };
  const moduleSymbol = checker.getSymbolAtLocation(sf);
  for (const sym of moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : []) {
    const s = sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;
    if (!(s.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias))) continue;
    entry.types[sym.name] = shapeOf(checker.getDeclaredTypeOfSymbol(s), 0);
  }
  const visit = (node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText(sf);
      const arg0 = node.arguments[0];
      if (callee === "JSON.stringify" && arg0 && ts.isObjectLiteralExpression(arg0)) {
        // The literal's `type` is widened to string in its type: read it
        // from the source.
        const typeProp = arg0.properties.find(
          (p) => ts.isPropertyAssignment(p) && p.name.getText(sf) === "type" && ts.isStringLiteralLike(p.initializer),
        );
        if (typeProp) {
          entry.sends.push({ line: line(node), type: typeProp.initializer.text, shape: shapeOf(checker.getTypeAtLocation(arg0), 0) });
        }
      }
      if (callee === "makeEnvelope" && arg0 && ts.isStringLiteralLike(arg0)) {
        const data = node.arguments[1];
        entry.envelopes.push({ line: line(node), type: arg0.text, data: data ? dataShape(data) : null });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  out[file] = entry;
}
// Only the files asked about: checking lib.dom.d.ts again would take most
// of the run (tsc in make test checks everything).
const diagnostics = files
  .flatMap((f) => {
    const sf = program.getSourceFile(f);
    return [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
  })
  .filter((d) => d.category === ts.DiagnosticCategory.Error);
if (diagnostics.length > 0) {
  const text = ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => process.cwd(), getNewLine: () => "\n" });
  process.stderr.write(text);
}
process.stdout.write(JSON.stringify(out, null, 1));
