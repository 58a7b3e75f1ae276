// The TypeScript program's environment.
console.log(JSON.stringify(process.env));
