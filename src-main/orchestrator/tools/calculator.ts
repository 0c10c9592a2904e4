import { ToolError, type Tool } from './tool';

/**
 * Arithmetic without eval: a recursive-descent parser over numbers, + - * / % ^ (right
 * associative), parentheses, unary minus, the constants pi and e, and a few Math functions.
 */
const FUNCTIONS: Readonly<Record<string, (...values: number[]) => number>> = {
  sqrt: Math.sqrt,
  abs: Math.abs,
  round: Math.round,
  floor: Math.floor,
  ceil: Math.ceil,
  min: Math.min,
  max: Math.max,
  ln: Math.log,
  log10: Math.log10,
  exp: Math.exp,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
};
const CONSTANTS: Readonly<Record<string, number>> = { pi: Math.PI, e: Math.E };
const MAX_LENGTH = 500;

type Token =
  { type: 'number'; value: number } | { type: 'name'; value: string } | { type: 'symbol'; value: string };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s*(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)|([A-Za-z_][A-Za-z0-9_]*)|([-+*/%^(),]))/y;
  let index = 0;
  while (index < text.length) {
    if (/^\s*$/.test(text.slice(index))) break;
    pattern.lastIndex = index;
    const match = pattern.exec(text);
    if (!match)
      throw new ToolError(`unexpected character "${text.slice(index).trim()[0]}" at position ${index + 1}`);
    if (match[1] !== undefined) tokens.push({ type: 'number', value: Number(match[1]) });
    else if (match[2] !== undefined) tokens.push({ type: 'name', value: match[2].toLowerCase() });
    else tokens.push({ type: 'symbol', value: match[3] as string });
    index = pattern.lastIndex;
  }
  return tokens;
}

class Parser {
  private position = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): number {
    const value = this.expression();
    if (this.position < this.tokens.length) throw new ToolError('unexpected text after the expression');
    return value;
  }

  private peek(): Token | undefined {
    return this.tokens[this.position];
  }

  private accept(symbol: string): boolean {
    const token = this.peek();
    if (token?.type === 'symbol' && token.value === symbol) {
      this.position += 1;
      return true;
    }
    return false;
  }

  private expression(): number {
    let value = this.term();
    for (;;) {
      if (this.accept('+')) value += this.term();
      else if (this.accept('-')) value -= this.term();
      else return value;
    }
  }

  private term(): number {
    let value = this.unary();
    for (;;) {
      if (this.accept('*')) value *= this.unary();
      else if (this.accept('/')) value /= this.unary();
      else if (this.accept('%')) value %= this.unary();
      else return value;
    }
  }

  private unary(): number {
    if (this.accept('-')) return -this.unary();
    if (this.accept('+')) return this.unary();
    return this.power();
  }

  private power(): number {
    const base = this.primary();
    return this.accept('^') ? base ** this.unary() : base;
  }

  private primary(): number {
    const token = this.peek();
    if (!token) throw new ToolError('the expression ended too early');
    this.position += 1;
    if (token.type === 'number') return token.value;
    if (token.type === 'symbol') {
      if (token.value !== '(') throw new ToolError(`unexpected "${token.value}"`);
      const value = this.expression();
      if (!this.accept(')')) throw new ToolError('a closing parenthesis is missing');
      return value;
    }
    // Own properties only: names like "constructor" must not reach Object.prototype.
    const fn = Object.hasOwn(FUNCTIONS, token.value) ? FUNCTIONS[token.value] : undefined;
    if (fn) {
      if (!this.accept('(')) throw new ToolError(`${token.value} needs parentheses`);
      const args = [this.expression()];
      while (this.accept(',')) args.push(this.expression());
      if (!this.accept(')')) throw new ToolError('a closing parenthesis is missing');
      return fn(...args);
    }
    const constant = Object.hasOwn(CONSTANTS, token.value) ? CONSTANTS[token.value] : undefined;
    if (constant !== undefined) return constant;
    throw new ToolError(`unknown name "${token.value}"`);
  }
}

export function evaluateExpression(expression: string): number {
  if (expression.length > MAX_LENGTH)
    throw new ToolError(`the expression is longer than ${MAX_LENGTH} characters`);
  const value = new Parser(tokenize(expression)).parse();
  if (!Number.isFinite(value)) throw new ToolError('the result is not a finite number');
  return value;
}

export const calculatorTool: Tool = {
  name: 'calculator',
  description:
    'Evaluates an arithmetic expression: numbers, + - * / % ^, parentheses, pi, e, and sqrt, abs, round, floor, ceil, min, max, ln, log10, exp, sin, cos, tan.',
  parameters: {
    type: 'object',
    properties: { expression: { type: 'string', description: 'For example "(2 + 3) * 4"' } },
    required: ['expression'],
    additionalProperties: false,
  },
  execute: (args) => String(evaluateExpression(args.expression as string)),
};
