import '@xterm/xterm/css/xterm.css'
import './styles.css'
import { start } from './app'

start()
