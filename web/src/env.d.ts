// CSS imported for its side effect: the bundler writes it to app.css.
declare module '*.css'
