import { PGlite } from '@electric-sql/pglite';
const db = new PGlite();
const norm = (t: string) => process.env.N ? t.replace(/-[\s\p{P}\p{S}]*-/gu, (m) => m.replace(/-/g, " ").replace(/^ /, "-")) : t;
const alphabet = ['-','-','-','-','-','-',' ','!','&','|','(',')','"',"'",'<','>',':','*','~','+','@','.', 'a', '-a'];
let bad = 0;
for (let i = 0; i < 4000; i++) {
  const len = 20 + Math.floor(Math.random() * 180);
  let s = ''; while (s.length < len) s += alphabet[Math.floor(Math.random() * alphabet.length)];
  s = s.slice(0, 200);
  const n = norm(s);
  try { await db.query(`select websearch_to_tsquery('english', $1)`, [n]); }
  catch (e) { if (bad++ < 5) console.log(JSON.stringify(s), '=>', JSON.stringify(n), (e as Error).message); }
}
console.log('bad', bad);
